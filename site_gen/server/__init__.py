"""Serving a built site: the policy engine's HTTP behaviour over the static files.

``policy_http`` decides what a request gets (pure, no I/O), ``static_files`` reads
the site safely (precompressed copies, validators), ``conditional`` holds nginx's rules for
gzip and 304s, and ``httpd`` is the event-loop server behind ``site-gen serve``.
"""
