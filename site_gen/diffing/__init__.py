"""``site-gen diff``: what a graph-data change does to the graphs clusters receive."""
