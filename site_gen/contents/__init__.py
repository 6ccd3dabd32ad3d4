"""Release contents: what a release image's payload holds, as oc and the cluster-version
operator compute it (docs/release-contents.md). Pure rules over a :class:`PayloadTree`;
reading registries, layers and directories is someone else's job."""
