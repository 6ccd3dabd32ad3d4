"""The build as a list of named steps (:mod:`.site_build`), and the runner that places
and times them (:mod:`.runner`)."""
