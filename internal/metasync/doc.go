// Package metasync builds the metadata snapshot and commits it to a git
// remote (DESIGN §8).
//
// # Git sync
//
// A Syncer keeps one local clone in GitConfig.WorkDir and, on each Sync,
// makes the remote branch hold the snapshot at GitConfig.Path:
//
//  1. Fetch the branch (refs/heads/B → refs/remotes/origin/B, forced) and
//     reset the local branch, index and work tree hard onto the remote
//     head. Local state never survives a sync: an unpushed commit from a
//     failed attempt is dropped.
//  2. Read the file from the head commit. When the caller's same(old, new)
//     says it is unchanged (the snapshot's generated_at differs on every
//     call, so bytes are not enough), return the head: no commit.
//  3. Otherwise write the file, commit it (author and committer are the
//     configured identity; other files in the repository are kept), and
//     push B:B without force.
//  4. A push refused because the remote moved on — go-git's own
//     fast-forward check against the advertised head, or the server
//     refusing the update when the head moved during the push — is
//     retried from step 1 on the new head, so history stays linear and
//     nobody's commit is overwritten. MaxPushAttempts bounds the pushes.
//
// The clone is made with PlainInit, a remote and a fetch rather than
// PlainClone, so that an empty remote, or a remote without the branch,
// takes the same path: the commit is then a root commit on a fresh
// repository. A WorkDir whose clone points at another URL (the operator
// changed --metadata-git-url) or cannot be opened is deleted and made
// again; a non-empty WorkDir that is not a clone is refused, never
// deleted. Sync calls are serialised with a mutex; two processes must not
// share a WorkDir.
//
// Remotes are file:// (go-git runs git-upload-pack and git-receive-pack,
// so git must be installed), http:// and https://. For HTTP the token is
// sent as basic auth with the user name x-access-token (or the URL's user
// name), which GitHub, GitLab and Gitea accept. Credentials embedded in the
// URL are taken out of it: the clone's config, logs, task records and
// Result.Remote only ever see GitConfig.RedactedURL. Errors are rewritten
// so their text has the token, the URL's user info and their escaped and
// base64 forms replaced by "***"; they do not unwrap to go-git's error
// (its text is unscrubbed) but errors.Is still matches its sentinels.
//
// A Sync whose context has no deadline gets DefaultSyncTimeout.
package metasync
