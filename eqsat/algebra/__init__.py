"""Pure math with no egglog: rotation polynomials in Z[rho]/(rho^n - 1) (``rotpoly``),
optimal addition-subtraction chains (``chains``), slot-set keys (``slot_keys``) and a lower
bound on the ct*ct products of any program computing a given function (``product_bound``)."""
