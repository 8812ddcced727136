func.func @f(%a: i16) -> i16 {
  %0 = "foo$ bar
}
