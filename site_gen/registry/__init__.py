"""Release images read from a container registry: the graph-builder's scrape (issue 8).

``reference`` parses ``docker://HOST[:PORT]/REPO``; ``credentials`` and ``tls`` set up
what the connection needs; ``client`` speaks the registry HTTP API (timeouts, retries,
auth); ``manifests``, ``layers`` and ``metadata`` read an image; ``cache`` remembers
each manifest digest's result; ``scraper`` turns a repository into release records and
``documents`` writes them as the release documents ``--releases DIR`` reads;
``source`` hooks ``--releases docker://...`` into the commands.
"""
