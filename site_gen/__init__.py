"""site-gen: publish precomputed OpenShift (Cincinnati) update graphs as a static site."""

__version__ = "0.1.0"
