"""eqsat-fhe: an equality-saturation optimizer for FHE circuits."""
