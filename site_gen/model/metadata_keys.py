"""The node metadata keys Cincinnati reads and writes (prefix ``io.openshift.upgrades.graph``)."""

PREFIX = "io.openshift.upgrades.graph"

ARCH_KEY = f"{PREFIX}.release.arch"
CHANNELS_KEY = f"{PREFIX}.release.channels"
MANIFESTREF_KEY = f"{PREFIX}.release.manifestref"

# Consumed by edge-add-remove (spec §6); they stay in served metadata.
PREVIOUS_ADD = f"{PREFIX}.previous.add"
NEXT_ADD = f"{PREFIX}.next.add"
PREVIOUS_REMOVE = f"{PREFIX}.previous.remove"
NEXT_REMOVE = f"{PREFIX}.next.remove"
REMOVE_REGEX_KEY = f"{PREFIX}.previous.remove_regex"
