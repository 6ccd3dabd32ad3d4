"""Serving a built site: the policy engine's HTTP behaviour over the static files.

``policy_http`` decides what a request gets (pure, no I/O), ``static_files`` reads
the site safely, and ``httpd`` is the small threaded server behind ``site-gen serve``.
"""
