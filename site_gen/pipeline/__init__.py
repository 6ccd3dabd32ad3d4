"""The build: its plan of optional parts (:mod:`.build_plan`), the named steps every build
runs (:mod:`.site_build`), and the runner that places and times them (:mod:`.runner`)."""
