package metasync

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/seedengine/seedengine"
)

// Defaults applied to a zero GitConfig field.
const (
	DefaultBranch          = "main"
	DefaultPath            = "metadata/snapshot.json"
	DefaultAuthorName      = "seedengine"
	DefaultAuthorEmail     = "seedengine@localhost"
	DefaultMaxPushAttempts = 3
	// DefaultSyncTimeout bounds a Sync whose context has no deadline.
	DefaultSyncTimeout = 10 * time.Minute
)

const (
	// TokenUsername is the basic-auth user name sent with a token; GitHub,
	// GitLab and Gitea accept any name next to a token, and GitHub App
	// tokens need this one.
	TokenUsername = "x-access-token"

	remoteName       = "origin"
	maxPushAttempts  = 100
	maxAuthorLen     = 200
	maxBranchLen     = 200
	maxPathLen       = 1000
	redactedSecret   = "***"
	invalidURLMarker = "<invalid url>"
)

// Setting names, as the flags spell them; a validation error's Field is one
// of these.
const (
	SettingURL         = "metadata-git-url"
	SettingBranch      = "metadata-git-branch"
	SettingPath        = "metadata-git-path"
	SettingToken       = "metadata-git-token"
	SettingAuthorName  = "metadata-git-author-name"
	SettingAuthorEmail = "metadata-git-author-email"
)

// GitConfig says where and how the metadata snapshot is committed. Zero
// fields take the Default* values.
type GitConfig struct {
	// URL of the remote: file:///abs/path/repo.git, https://host/owner/repo.git,
	// or http://… (plain HTTP is meant for loopback tests). User info in the
	// URL is used as basic-auth credentials when Token is empty, and is
	// never stored in the clone's config, logged or returned in errors.
	URL string
	// Branch to commit to; default "main". Created when the remote lacks it.
	Branch string
	// Path of the snapshot file in the repository; default
	// "metadata/snapshot.json". Relative, clean, without "..".
	Path string
	// Token for HTTP(S) remotes, sent as basic auth (user TokenUsername, or
	// the URL's user name when it has one; password the token). Ignored for
	// file:// remotes. Never logged.
	Token string
	// AuthorName and AuthorEmail sign the commits (author and committer);
	// defaults "seedengine" and "seedengine@localhost".
	AuthorName  string
	AuthorEmail string
	// WorkDir holds the local clone; created if missing and reused between
	// syncs. Required. It must be empty, missing, or a clone made by a
	// Syncer: a clone of another remote is deleted and made again.
	WorkDir string
	// MaxPushAttempts bounds the pushes of one Sync when the remote keeps
	// moving; default 3.
	MaxPushAttempts int
	// BeforePush, when set, is called after the commit is made and before
	// each push attempt (1, 2, …). A test hook to move the remote on.
	BeforePush func(attempt int)
}

func (c GitConfig) withDefaults() GitConfig {
	if c.Branch == "" {
		c.Branch = DefaultBranch
	}
	if c.Path == "" {
		c.Path = DefaultPath
	}
	if c.AuthorName == "" {
		c.AuthorName = DefaultAuthorName
	}
	if c.AuthorEmail == "" {
		c.AuthorEmail = DefaultAuthorEmail
	}
	if c.MaxPushAttempts == 0 {
		c.MaxPushAttempts = DefaultMaxPushAttempts
	}
	return c
}

// Validate checks the configuration after defaults. It returns an EINVALID
// *seedengine.Error whose Field is the setting at fault (SettingURL, …);
// messages never repeat the URL or the token.
func (c GitConfig) Validate() error {
	c = c.withDefaults()
	if _, err := c.parseURL(); err != nil {
		return err
	}
	if err := validateBranch(c.Branch); err != nil {
		return err
	}
	if err := validatePath(c.Path); err != nil {
		return err
	}
	if strings.IndexFunc(c.Token, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return seedengine.FieldErrorf(SettingToken, "--%s must not contain spaces or control characters", SettingToken)
	}
	if err := validateIdent(SettingAuthorName, c.AuthorName); err != nil {
		return err
	}
	if err := validateIdent(SettingAuthorEmail, c.AuthorEmail); err != nil {
		return err
	}
	if strings.ContainsFunc(c.AuthorEmail, unicode.IsSpace) {
		return seedengine.FieldErrorf(SettingAuthorEmail, "--%s must not contain spaces", SettingAuthorEmail)
	}
	if c.WorkDir == "" {
		return seedengine.Errorf(seedengine.EINVALID, "metadata git work directory is required")
	}
	if c.MaxPushAttempts < 1 || c.MaxPushAttempts > maxPushAttempts {
		return seedengine.Errorf(seedengine.EINVALID, "metadata git push attempts %d must be from 1 to %d", c.MaxPushAttempts, maxPushAttempts)
	}
	return nil
}

// parseURL parses and checks URL. Its errors never quote the URL, which
// may hold credentials.
func (c GitConfig) parseURL() (*url.URL, error) {
	bad := func(format string, args ...any) error {
		return seedengine.FieldErrorf(SettingURL, "--"+SettingURL+" "+format, args...)
	}
	if strings.TrimSpace(c.URL) == "" {
		return nil, bad("is required")
	}
	u, err := url.Parse(c.URL)
	if err != nil {
		return nil, bad("is not a valid URL")
	}
	switch u.Scheme {
	case "file":
		if u.User != nil {
			return nil, bad("must not hold credentials in a file:// URL")
		}
		if u.Host != "" && u.Host != "localhost" {
			return nil, bad("must be file:///absolute/path for a local repository")
		}
		if !path.IsAbs(u.Path) || strings.Contains(u.Path, "/../") || strings.HasSuffix(u.Path, "/..") {
			return nil, bad("must name an absolute path without \"..\"")
		}
	case "http", "https":
		if u.Hostname() == "" {
			return nil, bad("must name a host")
		}
	default:
		return nil, bad("must be a file://, http:// or https:// URL")
	}
	if u.Opaque != "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return nil, bad("must not have a query or fragment")
	}
	return u, nil
}

// validateBranch follows git check-ref-format for a branch name.
func validateBranch(b string) error {
	bad := func(why string) error {
		return seedengine.FieldErrorf(SettingBranch, "--%s %q %s", SettingBranch, seedengine.Truncate(b, 64), why)
	}
	switch {
	case len(b) > maxBranchLen:
		return bad(fmt.Sprintf("must be at most %d bytes", maxBranchLen))
	case b == "@" || b == "HEAD":
		return bad("is reserved")
	case strings.HasPrefix(b, "-") || strings.HasPrefix(b, "/") || strings.HasSuffix(b, "/") || strings.HasSuffix(b, "."):
		return bad("must not start with - or /, nor end with / or .")
	case strings.Contains(b, "..") || strings.Contains(b, "//") || strings.Contains(b, "@{"):
		return bad("must not contain \"..\", \"//\" or \"@{\"")
	case strings.ContainsAny(b, " ~^:?*[\\\x7f") || strings.ContainsFunc(b, unicode.IsControl):
		return bad("must not contain spaces, control characters or any of ~^:?*[\\")
	}
	for _, part := range strings.Split(b, "/") {
		if strings.HasPrefix(part, ".") || strings.HasSuffix(part, ".lock") {
			return bad("has a component that starts with . or ends with .lock")
		}
	}
	if err := plumbing.NewBranchReferenceName(b).Validate(); err != nil {
		return bad("is not a valid branch name")
	}
	return nil
}

// validatePath keeps the snapshot inside the work tree and out of .git.
func validatePath(p string) error {
	bad := func(why string) error {
		return seedengine.FieldErrorf(SettingPath, "--%s %q %s", SettingPath, seedengine.Truncate(p, 64), why)
	}
	switch {
	case len(p) > maxPathLen:
		return bad(fmt.Sprintf("must be at most %d bytes", maxPathLen))
	case strings.HasPrefix(p, "/") || filepath.IsAbs(p):
		return bad("must be relative to the repository root")
	case strings.ContainsRune(p, '\\') || strings.ContainsFunc(p, unicode.IsControl):
		return bad("must not contain backslashes or control characters")
	case path.Clean(p) != p || p == ".":
		return bad("must be a clean path to a file (no \".\", \"..\", \"//\" or trailing /)")
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." {
			return bad("must not contain \"..\"")
		}
		if strings.EqualFold(part, ".git") {
			return bad("must not be inside .git")
		}
	}
	return nil
}

func validateIdent(setting, v string) error {
	switch {
	case len(v) > maxAuthorLen:
		return seedengine.FieldErrorf(setting, "--%s must be at most %d bytes", setting, maxAuthorLen)
	case strings.ContainsAny(v, "<>") || strings.ContainsFunc(v, unicode.IsControl):
		return seedengine.FieldErrorf(setting, "--%s must not contain <, > or control characters", setting)
	}
	return nil
}

// RedactedURL returns URL without user info, query or fragment: safe for
// logs, task records and the snapshot. An unparsable URL gives
// "<invalid url>" rather than echoing what might be a credential.
func (c GitConfig) RedactedURL() string {
	u, err := url.Parse(c.URL)
	if err != nil || u.Scheme == "" || u.Opaque != "" {
		return invalidURLMarker
	}
	r := *u
	r.User = nil
	r.RawQuery, r.ForceQuery, r.Fragment, r.RawFragment = "", false, "", ""
	return r.String()
}

// Syncer commits the metadata snapshot to one git remote. Its methods are
// safe for concurrent use; syncs run one at a time because WorkDir is one
// clone.
type Syncer struct {
	cfg    GitConfig // defaults applied
	remote string    // cfg.RedactedURL(): what go-git and the clone's config see
	auth   transport.AuthMethod
	scrub  *strings.Replacer
	log    *slog.Logger

	mu sync.Mutex
}

// NewSyncer validates cfg (see GitConfig.Validate) and returns a Syncer.
// It touches neither WorkDir nor the remote: the first Sync does.
func NewSyncer(cfg GitConfig, log *slog.Logger) (*Syncer, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	u, _ := cfg.parseURL() // validated above
	s := &Syncer{cfg: cfg, remote: cfg.RedactedURL(), log: log}

	var user, pass string
	if u.User != nil {
		user = u.User.Username()
		pass, _ = u.User.Password()
	}
	if u.Scheme != "file" {
		switch {
		case cfg.Token != "":
			if user == "" {
				user = TokenUsername
			}
			s.auth = &githttp.BasicAuth{Username: user, Password: cfg.Token}
		case user != "":
			s.auth = &githttp.BasicAuth{Username: user, Password: pass}
		}
		if s.auth != nil && u.Scheme == "http" && !isLoopback(u.Hostname()) {
			log.Warn("metadata git credentials will be sent over plain http",
				"event", "metadata_git_insecure_auth", "remote", s.remote)
		}
	}
	s.scrub = newScrubber(cfg.URL, s.remote, u, user, pass, cfg.Token)
	return s, nil
}

// Remote returns the remote's URL without credentials (GitConfig.RedactedURL).
func (s *Syncer) Remote() string { return s.remote }

func isLoopback(host string) bool {
	return host == "localhost" || host == "127.0.0.1" || host == "::1" || strings.HasPrefix(host, "127.")
}

// newScrubber replaces every form in which a credential could show up in
// an error: the raw URL, the user info (raw and escaped), the password and
// token (raw, escaped, and inside a basic-auth header value).
func newScrubber(rawURL, redacted string, u *url.URL, user, pass, token string) *strings.Replacer {
	seen := map[string]bool{}
	var secrets []string
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			secrets = append(secrets, s)
		}
	}
	if u.User != nil {
		add(rawURL)
		add(u.User.String())
		if i := strings.IndexByte(rawURL, '@'); i >= 0 {
			if j := strings.Index(rawURL, "://"); j >= 0 && j+3 < i {
				add(rawURL[j+3 : i])
			}
		}
	}
	for _, p := range []string{pass, token} {
		if p == "" {
			continue
		}
		add(p)
		add(url.QueryEscape(p))
		add(url.PathEscape(p))
		add(base64.StdEncoding.EncodeToString([]byte(user + ":" + p)))
		add(base64.StdEncoding.EncodeToString([]byte(TokenUsername + ":" + p)))
	}
	// Longest first, so that the whole URL is replaced before its parts.
	sort.Slice(secrets, func(i, j int) bool { return len(secrets[i]) > len(secrets[j]) })
	var pairs []string
	for _, s := range secrets {
		if s == rawURL {
			pairs = append(pairs, s, redacted)
		} else {
			pairs = append(pairs, s, redactedSecret)
		}
	}
	return strings.NewReplacer(pairs...)
}

// Result is the outcome of a Sync.
type Result struct {
	// Changed is true when a commit was made and pushed.
	Changed bool
	// Commit is the commit at the head of the remote branch after the sync:
	// the new one when Changed, the existing head otherwise.
	Commit string
	// Remote is the remote's URL without credentials.
	Remote string
	// Attempts counts the pushes tried (0 when nothing needed pushing).
	Attempts int
}

// Sync makes the remote branch hold content at the configured path.
//
// It fetches the branch (the first time into a fresh clone in WorkDir),
// resets the local branch onto the remote head (an empty remote or a
// missing branch gives a root commit), and compares the file with content
// using same (nil means bytes.Equal). When they are the same it returns
// Changed false and the head. Otherwise it writes the file, commits it with
// message, calls BeforePush and pushes. A push rejected because the remote
// moved on is retried on top of the new head, up to MaxPushAttempts pushes;
// if the new head already holds the same content, nothing is committed.
//
// Errors name the step and never hold the token or the URL's user info;
// errors.Is still matches go-git's and the context's sentinel errors (for
// example transport.ErrAuthenticationRequired, context.DeadlineExceeded).
func (s *Syncer) Sync(ctx context.Context, content []byte, message string, same func(old, new []byte) bool) (Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultSyncTimeout)
		defer cancel()
	}
	if same == nil {
		same = bytes.Equal
	}
	if strings.TrimSpace(message) == "" {
		message = "Update " + s.cfg.Path
	}
	res := Result{Remote: s.remote}
	log := s.log.With("remote", s.remote, "branch", s.cfg.Branch)

	repo, err := s.open(ctx)
	if err != nil {
		return res, err
	}
	for attempt := 1; ; attempt++ {
		var head plumbing.Hash
		repo, head, err = s.fetchAndReset(ctx, repo)
		if err != nil {
			return res, err
		}
		old, found, err := s.readFile(repo, head)
		if err != nil {
			return res, err
		}
		if found && (bytes.Equal(old, content) || same(old, content)) {
			res.Commit = head.String()
			log.DebugContext(ctx, "metadata snapshot unchanged", "event", "metadata_git_unchanged",
				"commit", res.Commit, "attempts", res.Attempts)
			return res, nil
		}
		commit, err := s.commit(repo, content, message)
		if err != nil {
			return res, err
		}
		if s.cfg.BeforePush != nil {
			s.cfg.BeforePush(attempt)
		}
		res.Attempts = attempt
		err = s.push(ctx, repo)
		if err == nil {
			res.Changed, res.Commit = true, commit.String()
			log.InfoContext(ctx, "metadata snapshot pushed", "event", "metadata_git_pushed",
				"commit", res.Commit, "attempts", res.Attempts)
			return res, nil
		}
		if !isRejectedPush(err) || attempt >= s.cfg.MaxPushAttempts || ctx.Err() != nil {
			return res, s.wrap(fmt.Sprintf("push to %s (attempt %d of %d)", s.remote, attempt, s.cfg.MaxPushAttempts), err)
		}
		log.InfoContext(ctx, "metadata git push rejected, retrying on the new head", "event", "metadata_git_push_retry",
			"attempt", attempt, "error", s.scrub.Replace(err.Error()))
	}
}

// isRejectedPush reports whether a push failed because the remote branch is
// no longer where the fetch found it: go-git's own fast-forward check
// against the advertised head, or the server refusing the ref update when
// the head moved between the advertisement and the update.
func isRejectedPush(err error) bool {
	if errors.Is(err, git.ErrNonFastForwardUpdate) {
		return true
	}
	msg := err.Error()
	for _, s := range []string{"non-fast-forward", "fetch first", "failed to update ref", "cannot lock ref", "failed to lock", "stale info"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// open returns the clone in WorkDir, making a new one when there is none,
// it is unreadable, or it points at another remote.
func (s *Syncer) open(ctx context.Context) (*git.Repository, error) {
	dir := s.cfg.WorkDir
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		repo, err := git.PlainOpen(dir)
		if err == nil {
			rem, rerr := repo.Remote(remoteName)
			if rerr == nil && len(rem.Config().URLs) == 1 && rem.Config().URLs[0] == s.remote {
				return repo, nil
			}
			s.log.InfoContext(ctx, "metadata git clone points elsewhere; cloning again", "event", "metadata_git_reclone",
				"remote", s.remote, "work_dir", dir)
		} else {
			s.log.WarnContext(ctx, "metadata git clone unreadable; cloning again", "event", "metadata_git_reclone",
				"remote", s.remote, "work_dir", dir, "error", s.scrub.Replace(err.Error()))
		}
		return s.initRepo()
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, s.wrap("open metadata git work directory", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, s.wrap("open metadata git work directory", err)
	}
	if len(entries) > 0 {
		return nil, seedengine.Errorf(seedengine.EINVALID,
			"metadata git work directory %s is neither empty nor a clone; refusing to overwrite it", dir)
	}
	return s.initRepo()
}

// initRepo makes WorkDir an empty repository with the remote configured
// and HEAD on the branch. It is what a clone is before its first fetch, and
// unlike PlainClone it works the same for an empty remote or a remote
// without the branch.
func (s *Syncer) initRepo() (*git.Repository, error) {
	dir := s.cfg.WorkDir
	if err := os.RemoveAll(dir); err != nil {
		return nil, s.wrap("clear metadata git work directory", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, s.wrap("create metadata git work directory", err)
	}
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		return nil, s.wrap("init metadata git clone", err)
	}
	if _, err := repo.CreateRemote(&config.RemoteConfig{
		Name:  remoteName,
		URLs:  []string{s.remote},
		Fetch: []config.RefSpec{s.fetchSpec()},
	}); err != nil {
		return nil, s.wrap("configure metadata git remote", err)
	}
	head := plumbing.NewSymbolicReference(plumbing.HEAD, plumbing.NewBranchReferenceName(s.cfg.Branch))
	if err := repo.Storer.SetReference(head); err != nil {
		return nil, s.wrap("set metadata git HEAD", err)
	}
	return repo, nil
}

func (s *Syncer) fetchSpec() config.RefSpec {
	return config.RefSpec(fmt.Sprintf("+refs/heads/%s:refs/remotes/%s/%s", s.cfg.Branch, remoteName, s.cfg.Branch))
}

// fetchAndReset fetches the branch and points the local branch, index and
// work tree at the remote head, discarding any local commit. With no remote
// branch it starts again from an empty repository and returns a zero hash.
func (s *Syncer) fetchAndReset(ctx context.Context, repo *git.Repository) (*git.Repository, plumbing.Hash, error) {
	err := repo.FetchContext(ctx, &git.FetchOptions{
		RemoteName: remoteName,
		RefSpecs:   []config.RefSpec{s.fetchSpec()},
		Auth:       s.auth,
		Tags:       git.NoTags,
		Force:      true,
	})
	switch {
	case err == nil, errors.Is(err, git.NoErrAlreadyUpToDate):
	case errors.Is(err, transport.ErrEmptyRemoteRepository), errors.Is(err, git.NoMatchingRefSpecError{}):
		// An empty remote, or one without the branch: the next commit is a
		// root commit. Start from a clean repository so that nothing from
		// an earlier, unpushed attempt is carried over.
		repo, err := s.initRepo()
		return repo, plumbing.ZeroHash, err
	default:
		return repo, plumbing.ZeroHash, s.wrap("fetch "+s.cfg.Branch+" from "+s.remote, err)
	}
	ref, err := repo.Reference(plumbing.NewRemoteReferenceName(remoteName, s.cfg.Branch), true)
	if err != nil {
		return repo, plumbing.ZeroHash, s.wrap("read fetched head", err)
	}
	head := ref.Hash()
	branch := plumbing.NewBranchReferenceName(s.cfg.Branch)
	if err := repo.Storer.SetReference(plumbing.NewHashReference(branch, head)); err != nil {
		return repo, plumbing.ZeroHash, s.wrap("move local branch", err)
	}
	if err := repo.Storer.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, branch)); err != nil {
		return repo, plumbing.ZeroHash, s.wrap("set metadata git HEAD", err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		return repo, plumbing.ZeroHash, s.wrap("open work tree", err)
	}
	if err := wt.Reset(&git.ResetOptions{Commit: head, Mode: git.HardReset}); err != nil {
		return repo, plumbing.ZeroHash, s.wrap("reset work tree", err)
	}
	return repo, head, nil
}

// readFile returns the snapshot file as committed at head.
func (s *Syncer) readFile(repo *git.Repository, head plumbing.Hash) ([]byte, bool, error) {
	if head.IsZero() {
		return nil, false, nil
	}
	c, err := repo.CommitObject(head)
	if err != nil {
		return nil, false, s.wrap("read head commit", err)
	}
	f, err := c.File(s.cfg.Path)
	if errors.Is(err, object.ErrFileNotFound) || errors.Is(err, object.ErrDirectoryNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, s.wrap("read "+s.cfg.Path, err)
	}
	r, err := f.Reader()
	if err != nil {
		return nil, false, s.wrap("read "+s.cfg.Path, err)
	}
	defer r.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(r); err != nil {
		return nil, false, s.wrap("read "+s.cfg.Path, err)
	}
	return buf.Bytes(), true, nil
}

// commit writes content at the configured path and commits it on the
// current branch.
func (s *Syncer) commit(repo *git.Repository, content []byte, message string) (plumbing.Hash, error) {
	wt, err := repo.Worktree()
	if err != nil {
		return plumbing.ZeroHash, s.wrap("open work tree", err)
	}
	if err := writeInTree(s.cfg.WorkDir, s.cfg.Path, content); err != nil {
		return plumbing.ZeroHash, s.wrap("write "+s.cfg.Path, err)
	}
	if _, err := wt.Add(s.cfg.Path); err != nil {
		return plumbing.ZeroHash, s.wrap("stage "+s.cfg.Path, err)
	}
	sig := &object.Signature{Name: s.cfg.AuthorName, Email: s.cfg.AuthorEmail, When: time.Now()}
	h, err := wt.Commit(message, &git.CommitOptions{Author: sig, Committer: sig})
	if err != nil {
		return plumbing.ZeroHash, s.wrap("commit "+s.cfg.Path, err)
	}
	return h, nil
}

// writeInTree writes content at path (slash-separated, relative) inside
// the work tree dir, never outside it: the tree is the remote's, and
// whoever can push there could plant symbolic links. Writes go through an
// os.Root, a symbolic link at path is replaced by a regular file, and a
// parent that is not a real directory is refused.
func writeInTree(dir, path string, content []byte) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	rel := filepath.FromSlash(path)
	parent := filepath.Dir(rel)
	for p := parent; p != "." && p != string(filepath.Separator); p = filepath.Dir(p) {
		fi, err := root.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s is not a directory in the repository (a %s); refusing to write through it", filepath.ToSlash(p), fi.Mode().Type())
		}
	}
	if parent != "." {
		if err := root.MkdirAll(parent, 0o755); err != nil {
			return err
		}
	}
	if fi, err := root.Lstat(rel); err == nil && !fi.Mode().IsRegular() {
		if fi.Mode()&fs.ModeSymlink == 0 {
			return fmt.Errorf("%s is not a regular file in the repository", path)
		}
		if err := root.Remove(rel); err != nil {
			return err
		}
	}
	return root.WriteFile(rel, content, 0o644)
}

func (s *Syncer) push(ctx context.Context, repo *git.Repository) error {
	ref := plumbing.NewBranchReferenceName(s.cfg.Branch)
	err := repo.PushContext(ctx, &git.PushOptions{
		RemoteName: remoteName,
		RefSpecs:   []config.RefSpec{config.RefSpec(ref + ":" + ref)},
		Auth:       s.auth,
	})
	if errors.Is(err, git.NoErrAlreadyUpToDate) {
		return nil
	}
	return err
}

// wrap returns err with op as context and every credential scrubbed from
// its text. The result does not unwrap to err — that would hand the
// unscrubbed text to whoever asks — but errors.Is sees err's chain.
func (s *Syncer) wrap(op string, err error) error {
	return &scrubbedError{msg: s.scrub.Replace("metadata git: " + op + ": " + err.Error()), cause: err}
}

type scrubbedError struct {
	msg   string
	cause error
}

func (e *scrubbedError) Error() string { return e.msg }

// Is lets errors.Is match sentinels in the hidden cause.
func (e *scrubbedError) Is(target error) bool { return errors.Is(e.cause, target) }
