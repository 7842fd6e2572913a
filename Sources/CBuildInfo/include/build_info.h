#ifndef CONFORM_BUILD_INFO_H
#define CONFORM_BUILD_INFO_H

/// The commit Conform was built from (`Context.gitInformation` when the manifest was read), `-dirty` when the
/// checkout had uncommitted changes, or `unknown` outside a git checkout.
const char *conform_build_commit(void);

#endif
