"""Pure math with no egglog: rotation polynomials in Z[rho]/(rho^n - 1) (``rotpoly``),
optimal addition-subtraction chains (``chains``) and slot-set keys (``slot_keys``)."""
