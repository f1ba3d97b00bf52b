package metasync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
)

// gitEnv isolates the git CLI from the machine's configuration.
func gitEnv(home string) []string {
	return append(os.Environ(),
		"HOME="+home,
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Other Writer", "GIT_AUTHOR_EMAIL=other@example.test",
		"GIT_COMMITTER_NAME=Other Writer", "GIT_COMMITTER_EMAIL=other@example.test",
		"GIT_TERMINAL_PROMPT=0",
	)
}

// runGit runs the git CLI in dir and returns its trimmed output.
func runGit(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := tryGit(dir, args...)
	require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
	return out
}

func tryGit(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnv(dir)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// newBare makes an empty bare repository whose HEAD is main and returns
// its path and file:// URL.
func newBare(t testing.TB) (dir, fileURL string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "remote.git")
	runGit(t, t.TempDir(), "init", "--bare", "-q", "-b", "main", dir)
	return dir, "file://" + dir
}

// pushFile commits name=content on branch of the remote with the git CLI,
// as another writer would.
func pushFile(t testing.TB, remoteURL, branch, name, content string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "other")
	runGit(t, filepath.Dir(dir), "init", "-q", "-b", branch, dir)
	runGit(t, dir, "remote", "add", "origin", remoteURL)
	if _, err := tryGit(dir, "fetch", "-q", "origin", branch); err == nil {
		runGit(t, dir, "reset", "-q", "--hard", "FETCH_HEAD")
	}
	require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	runGit(t, dir, "add", name)
	runGit(t, dir, "commit", "-q", "-m", "other writer: "+name)
	runGit(t, dir, "push", "-q", "origin", "HEAD:refs/heads/"+branch)
	return runGit(t, dir, "rev-parse", "HEAD")
}

// lockedBuffer collects log output written from any goroutine.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func debugLogger() (*slog.Logger, *lockedBuffer) {
	buf := &lockedBuffer{}
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug})), buf
}

// newSyncer returns a Syncer for remoteURL with a fresh WorkDir unless cfg
// names one.
func newSyncer(t testing.TB, cfg GitConfig, log *slog.Logger) *Syncer {
	t.Helper()
	if cfg.WorkDir == "" {
		cfg.WorkDir = filepath.Join(t.TempDir(), "metadata-git")
	}
	s, err := NewSyncer(cfg, log)
	require.NoError(t, err)
	return s
}

func TestSyncFileRemote(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bare, remote := newBare(t)
	s := newSyncer(t, GitConfig{URL: remote, AuthorName: "Seed Bot", AuthorEmail: "bot@example.test"}, nil)

	// First sync into an empty remote: a root commit.
	res, err := s.Sync(ctx, []byte("v1\n"), "snapshot: 1 record", nil)
	require.NoError(t, err)
	require.True(t, res.Changed)
	require.Equal(t, 1, res.Attempts)
	require.Equal(t, remote, res.Remote)
	require.Equal(t, runGit(t, bare, "rev-parse", "main"), res.Commit)
	require.Equal(t, "v1", runGit(t, bare, "show", "main:metadata/snapshot.json"))
	require.Equal(t, "Seed Bot <bot@example.test>|Seed Bot <bot@example.test>|snapshot: 1 record",
		runGit(t, bare, "log", "-1", "--format=%an <%ae>|%cn <%ce>|%s", "main"))
	first := res.Commit

	// Same bytes: no commit.
	res, err = s.Sync(ctx, []byte("v1\n"), "snapshot: again", nil)
	require.NoError(t, err)
	require.False(t, res.Changed)
	require.Equal(t, first, res.Commit)
	require.Zero(t, res.Attempts)
	require.Equal(t, "1", runGit(t, bare, "rev-list", "--count", "main"))

	// Different bytes that the caller calls the same: no commit.
	res, err = s.Sync(ctx, []byte("v1 with a new timestamp\n"), "snapshot", func(old, new []byte) bool {
		return bytes.HasPrefix(new, bytes.TrimSpace(old))
	})
	require.NoError(t, err)
	require.False(t, res.Changed)
	require.Equal(t, first, res.Commit)

	// New content: a second commit on top of the first.
	res, err = s.Sync(ctx, []byte("v2\n"), "snapshot: 2 records\n\nbody", nil)
	require.NoError(t, err)
	require.True(t, res.Changed)
	require.NotEqual(t, first, res.Commit)
	require.Equal(t, res.Commit, runGit(t, bare, "rev-parse", "main"))
	require.Equal(t, first, runGit(t, bare, "rev-parse", "main^"))
	require.Equal(t, "snapshot: 2 records\n\nbody", runGit(t, bare, "log", "-1", "--format=%B", "main"))
	require.Equal(t, "v2", runGit(t, bare, "show", "main:metadata/snapshot.json"))
	second := res.Commit

	// Another Syncer with a fresh WorkDir clones and sees the same state.
	s2 := newSyncer(t, GitConfig{URL: remote}, nil)
	res, err = s2.Sync(ctx, []byte("v2\n"), "snapshot", nil)
	require.NoError(t, err)
	require.False(t, res.Changed)
	require.Equal(t, second, res.Commit)
	res, err = s2.Sync(ctx, []byte("v3\n"), "snapshot: 3", nil)
	require.NoError(t, err)
	require.True(t, res.Changed)
	require.Equal(t, "seedengine <seedengine@localhost>", runGit(t, bare, "log", "-1", "--format=%an <%ae>", "main"))
	third := res.Commit

	// The first Syncer's clone is behind; it fetches and builds on top.
	res, err = s.Sync(ctx, []byte("v4\n"), "snapshot: 4", nil)
	require.NoError(t, err)
	require.True(t, res.Changed)
	require.Equal(t, third, runGit(t, bare, "rev-parse", "main^"))
	require.Equal(t, "4", runGit(t, bare, "rev-list", "--count", "main"))
}

func TestSyncKeepsOtherFilesAndBranches(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bare, remote := newBare(t)
	readme := pushFile(t, remote, "main", "README.md", "# metadata\n")
	pushFile(t, remote, "other", "notes.txt", "other branch\n")

	s := newSyncer(t, GitConfig{URL: remote, Path: "data/deep/snap.json"}, nil)
	res, err := s.Sync(ctx, []byte(`{"a":1}`), "snapshot", nil)
	require.NoError(t, err)
	require.True(t, res.Changed)
	require.Equal(t, readme, runGit(t, bare, "rev-parse", "main^"))
	require.Equal(t, "# metadata", runGit(t, bare, "show", "main:README.md"))
	require.Equal(t, `{"a":1}`, runGit(t, bare, "show", "main:data/deep/snap.json"))
	require.Equal(t, "other branch", runGit(t, bare, "show", "other:notes.txt"))
}

func TestSyncCreatesMissingBranch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bare, remote := newBare(t)
	other := pushFile(t, remote, "other", "notes.txt", "x\n")

	s := newSyncer(t, GitConfig{URL: remote, Branch: "metadata/snapshots"}, nil)
	res, err := s.Sync(ctx, []byte("v1\n"), "snapshot", nil)
	require.NoError(t, err)
	require.True(t, res.Changed)
	require.Equal(t, res.Commit, runGit(t, bare, "rev-parse", "metadata/snapshots"))
	require.Equal(t, "1", runGit(t, bare, "rev-list", "--count", "metadata/snapshots"), "a root commit")
	require.Equal(t, other, runGit(t, bare, "rev-parse", "other"))

	// The branch vanishes (deleted on the remote): the next sync starts it again.
	runGit(t, bare, "update-ref", "-d", "refs/heads/metadata/snapshots")
	res, err = s.Sync(ctx, []byte("v1\n"), "snapshot", nil)
	require.NoError(t, err)
	require.True(t, res.Changed)
	require.Equal(t, "1", runGit(t, bare, "rev-list", "--count", "metadata/snapshots"))
}

func TestSyncRetriesWhenRemoteMoves(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bare, remote := newBare(t)
	base := pushFile(t, remote, "main", "README.md", "hello\n")

	var theirs string
	var calls []int
	log, logs := debugLogger()
	s := newSyncer(t, GitConfig{URL: remote, BeforePush: func(attempt int) {
		calls = append(calls, attempt)
		if attempt == 1 {
			theirs = pushFile(t, remote, "main", "other.txt", "theirs\n")
		}
	}}, log)
	res, err := s.Sync(ctx, []byte("ours\n"), "snapshot", nil)
	require.NoError(t, err)
	require.True(t, res.Changed)
	require.Equal(t, 2, res.Attempts)
	require.Equal(t, []int{1, 2}, calls)
	require.Equal(t, res.Commit, runGit(t, bare, "rev-parse", "main"))
	require.Equal(t, theirs, runGit(t, bare, "rev-parse", "main^"), "our commit sits on theirs")
	require.Equal(t, base, runGit(t, bare, "rev-parse", "main^^"))
	require.Equal(t, "3", runGit(t, bare, "rev-list", "--count", "main"))
	require.Equal(t, "", runGit(t, bare, "rev-list", "--merges", "main"), "linear history")
	require.Equal(t, "theirs", runGit(t, bare, "show", "main:other.txt"))
	require.Equal(t, "ours", runGit(t, bare, "show", "main:metadata/snapshot.json"))
	require.Contains(t, logs.String(), "event=metadata_git_push_retry")
}

func TestSyncGivesUpAfterMaxPushAttempts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bare, remote := newBare(t)
	pushFile(t, remote, "main", "README.md", "hello\n")

	n := 0
	s := newSyncer(t, GitConfig{URL: remote, MaxPushAttempts: 2, BeforePush: func(int) {
		n++
		pushFile(t, remote, "main", "other.txt", fmt.Sprintf("theirs %d\n", n))
	}}, nil)
	res, err := s.Sync(ctx, []byte("ours\n"), "snapshot", nil)
	require.Error(t, err)
	require.Contains(t, err.Error(), "non-fast-forward")
	require.Contains(t, err.Error(), "attempt 2 of 2")
	require.False(t, res.Changed)
	require.Equal(t, 2, res.Attempts)
	require.Equal(t, "theirs 2", runGit(t, bare, "show", "main:other.txt"))
	_, err = tryGit(bare, "show", "main:metadata/snapshot.json")
	require.Error(t, err, "our file never landed")
}

func TestSyncRetryFindsSameContent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bare, remote := newBare(t)
	pushFile(t, remote, "main", "README.md", "hello\n")

	var theirs string
	s := newSyncer(t, GitConfig{URL: remote, BeforePush: func(attempt int) {
		// Another writer pushes the very snapshot we are about to push.
		theirs = pushFile(t, remote, "main", DefaultPath, "same\n")
	}}, nil)
	res, err := s.Sync(ctx, []byte("same\n"), "snapshot", nil)
	require.NoError(t, err)
	require.False(t, res.Changed)
	require.Equal(t, theirs, res.Commit)
	require.Equal(t, 1, res.Attempts)
	require.Equal(t, theirs, runGit(t, bare, "rev-parse", "main"))
}

func TestSyncWorkDir(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bare1, remote1 := newBare(t)
	bare2, remote2 := newBare(t)
	work := filepath.Join(t.TempDir(), "metadata-git")

	_, err := newSyncer(t, GitConfig{URL: remote1, WorkDir: work}, nil).Sync(ctx, []byte("one\n"), "snapshot", nil)
	require.NoError(t, err)

	// The operator points the setting at another remote: the clone is made again.
	log, logs := debugLogger()
	res, err := newSyncer(t, GitConfig{URL: remote2, WorkDir: work}, log).Sync(ctx, []byte("two\n"), "snapshot", nil)
	require.NoError(t, err)
	require.True(t, res.Changed)
	require.Contains(t, logs.String(), "event=metadata_git_reclone")
	require.Equal(t, "two", runGit(t, bare2, "show", "main:metadata/snapshot.json"))
	require.Equal(t, "one", runGit(t, bare1, "show", "main:metadata/snapshot.json"))
	require.Equal(t, remote2, runGit(t, work, "remote", "get-url", "origin"))

	// A clone that cannot be opened is made again too.
	require.NoError(t, os.WriteFile(filepath.Join(work, ".git", "HEAD"), []byte("garbage"), 0o644))
	require.NoError(t, os.RemoveAll(filepath.Join(work, ".git", "config")))
	res, err = newSyncer(t, GitConfig{URL: remote2, WorkDir: work}, nil).Sync(ctx, []byte("two\n"), "snapshot", nil)
	require.NoError(t, err)
	require.False(t, res.Changed)

	// A directory that is not a clone is never deleted.
	other := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(other, "precious.txt"), []byte("keep"), 0o644))
	_, err = newSyncer(t, GitConfig{URL: remote2, WorkDir: other}, nil).Sync(ctx, []byte("x"), "snapshot", nil)
	require.Error(t, err)
	require.Equal(t, seedengine.EINVALID, seedengine.ErrorCode(err))
	require.FileExists(t, filepath.Join(other, "precious.txt"))
}

func TestSyncSerialised(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bare, remote := newBare(t)
	s := newSyncer(t, GitConfig{URL: remote}, nil)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.Sync(ctx, []byte(fmt.Sprintf("v%d\n", i)), "snapshot", nil)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	require.Equal(t, "4", runGit(t, bare, "rev-list", "--count", "main"))
}

func TestSyncCanceled(t *testing.T) {
	t.Parallel()
	_, remote := newBare(t)
	s := newSyncer(t, GitConfig{URL: remote}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := s.Sync(ctx, []byte("v1\n"), "snapshot", nil)
	require.Error(t, err)
	require.ErrorIs(t, err, context.Canceled)
}

// gitServer serves bare repositories under root over the git smart HTTP
// protocol (git http-backend through CGI), on loopback, requiring basic
// auth whose password is the token.
type gitServer struct {
	root  string
	token string
	URL   string
	// beforeReceivePack runs once, before the first push request reaches
	// git: a way to move the branch between advertisement and update.
	beforeReceivePack func()
	once              sync.Once
	mu                sync.Mutex
	authHeaders       []string
}

func newGitServer(t testing.TB, token string) *gitServer {
	t.Helper()
	execPath := runGit(t, t.TempDir(), "--exec-path")
	g := &gitServer{root: t.TempDir(), token: token}
	backend := &cgi.Handler{
		Path:   filepath.Join(execPath, "git-http-backend"),
		Dir:    g.root,
		Stderr: io.Discard, // git's own report of the refused update in the race test
		Env: []string{
			"GIT_PROJECT_ROOT=" + g.root,
			"GIT_HTTP_EXPORT_ALL=1",
			"GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_CONFIG_NOSYSTEM=1",
			"HOME=" + g.root,
		},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		g.authHeaders = append(g.authHeaders, r.Header.Get("Authorization"))
		g.mu.Unlock()
		if _, pass, ok := r.BasicAuth(); !ok || pass != g.token {
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "bad credentials", http.StatusUnauthorized)
			return
		}
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git-receive-pack") && g.beforeReceivePack != nil {
			g.once.Do(g.beforeReceivePack)
		}
		backend.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	g.URL = srv.URL
	return g
}

// newRepo makes an empty bare repository that accepts pushes over HTTP and
// returns its path and HTTP URL.
func (g *gitServer) newRepo(t testing.TB, name string) (dir, httpURL string) {
	t.Helper()
	dir = filepath.Join(g.root, name)
	runGit(t, g.root, "init", "--bare", "-q", "-b", "main", dir)
	runGit(t, dir, "config", "http.receivepack", "true")
	return dir, g.URL + "/" + name
}

func TestSyncHTTP(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const token = "ghp_TopSecretToken123"
	g := newGitServer(t, token)
	bare, remote := g.newRepo(t, "meta.git")

	log, logs := debugLogger()
	s := newSyncer(t, GitConfig{URL: remote, Token: token}, log)
	res, err := s.Sync(ctx, []byte("v1\n"), "snapshot: 1", nil)
	require.NoError(t, err)
	require.True(t, res.Changed)
	require.Equal(t, res.Commit, runGit(t, bare, "rev-parse", "main"))
	require.Equal(t, "v1", runGit(t, bare, "show", "main:metadata/snapshot.json"))

	res, err = s.Sync(ctx, []byte("v1\n"), "snapshot: 1", nil)
	require.NoError(t, err)
	require.False(t, res.Changed)

	res, err = s.Sync(ctx, []byte("v2\n"), "snapshot: 2", nil)
	require.NoError(t, err)
	require.True(t, res.Changed)
	require.Equal(t, "2", runGit(t, bare, "rev-list", "--count", "main"))

	// The token went as basic auth with the documented user name.
	g.mu.Lock()
	for _, h := range g.authHeaders {
		require.NotEmpty(t, h)
	}
	g.mu.Unlock()
	req, _ := http.NewRequest(http.MethodGet, remote, nil)
	req.SetBasicAuth(TokenUsername, token)
	g.mu.Lock()
	require.Contains(t, g.authHeaders, req.Header.Get("Authorization"))
	g.mu.Unlock()

	// A wrong token fails without showing either token.
	const wrong = "ghp_WrongTokenValue999"
	s2 := newSyncer(t, GitConfig{URL: remote, Token: wrong}, log)
	_, err = s2.Sync(ctx, []byte("v3\n"), "snapshot: 3", nil)
	require.Error(t, err)
	require.ErrorIs(t, err, transport.ErrAuthenticationRequired)
	require.NotContains(t, err.Error(), wrong)
	require.NotContains(t, err.Error(), token)
	require.Contains(t, err.Error(), remote)

	out := logs.String()
	require.Contains(t, out, "event=metadata_git_pushed")
	require.NotContains(t, out, token)
	require.NotContains(t, out, wrong)
	require.NotContains(t, out, "TopSecret")
}

func TestSyncHTTPCredentialsInURL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g := newGitServer(t, "secret")
	bare, remote := g.newRepo(t, "meta.git")
	u, err := url.Parse(remote)
	require.NoError(t, err)
	u.User = url.UserPassword("user", "secret")
	withCreds := u.String()

	log, logs := debugLogger()
	cfg := GitConfig{URL: withCreds}
	require.Equal(t, remote, cfg.RedactedURL())
	s := newSyncer(t, cfg, log)
	res, err := s.Sync(ctx, []byte("v1\n"), "snapshot", nil)
	require.NoError(t, err)
	require.True(t, res.Changed)
	require.Equal(t, remote, res.Remote)
	require.Equal(t, "v1", runGit(t, bare, "show", "main:metadata/snapshot.json"))
	gitConfig, err := os.ReadFile(filepath.Join(s.cfg.WorkDir, ".git", "config"))
	require.NoError(t, err)
	require.NotContains(t, string(gitConfig), "secret", "credentials are not stored in the clone")

	// Wrong password in the URL: the error shows neither it nor the user info.
	u.User = url.UserPassword("user", "secret-but-wrong")
	bad := newSyncer(t, GitConfig{URL: u.String()}, log)
	_, err = bad.Sync(ctx, []byte("v2\n"), "snapshot", nil)
	require.Error(t, err)
	require.NotContains(t, err.Error(), "secret")
	require.NotContains(t, err.Error(), "user:")
	require.NotContains(t, logs.String(), "secret")
}

func TestSyncHTTPServerSideRace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const token = "tok-race"
	g := newGitServer(t, token)
	bare, remote := g.newRepo(t, "meta.git")
	base := pushFile(t, "file://"+bare, "main", "README.md", "hello\n")

	// The branch moves after the push has read the advertised head and
	// before git-receive-pack updates it: the server refuses the update.
	var theirs string
	g.beforeReceivePack = func() { theirs = pushFile(t, "file://"+bare, "main", "other.txt", "theirs\n") }
	log, logs := debugLogger()
	s := newSyncer(t, GitConfig{URL: remote, Token: token}, log)
	res, err := s.Sync(ctx, []byte("ours\n"), "snapshot", nil)
	require.NoError(t, err, logs.String())
	require.True(t, res.Changed)
	require.Equal(t, 2, res.Attempts)
	require.Equal(t, theirs, runGit(t, bare, "rev-parse", "main^"))
	require.Equal(t, base, runGit(t, bare, "rev-parse", "main^^"))
	require.Equal(t, "theirs", runGit(t, bare, "show", "main:other.txt"))
	require.Equal(t, "ours", runGit(t, bare, "show", "main:metadata/snapshot.json"))

	// The branch moves before the push starts: go-git's own fast-forward
	// check refuses it over HTTP as well.
	s2 := newSyncer(t, GitConfig{URL: remote, Token: token, BeforePush: func(attempt int) {
		if attempt == 1 {
			theirs = pushFile(t, "file://"+bare, "main", "other.txt", "theirs again\n")
		}
	}}, log)
	res, err = s2.Sync(ctx, []byte("ours again\n"), "snapshot", nil)
	require.NoError(t, err, logs.String())
	require.Equal(t, 2, res.Attempts)
	require.Equal(t, res.Commit, runGit(t, bare, "rev-parse", "main"))
	require.Equal(t, theirs, runGit(t, bare, "rev-parse", "main^"))
	require.Equal(t, remote, s2.Remote())
	require.NotContains(t, logs.String(), token)
}

func TestValidate(t *testing.T) {
	t.Parallel()
	ok := GitConfig{URL: "https://example.test/owner/repo.git", WorkDir: "/tmp/w"}
	require.NoError(t, ok.Validate())
	for _, u := range []string{"file:///srv/git/meta.git", "http://127.0.0.1:8080/meta.git", "https://user:tok@example.test/r.git", "file://localhost/srv/r.git"} {
		c := ok
		c.URL = u
		require.NoError(t, c.Validate(), u)
	}

	tests := []struct {
		name  string
		edit  func(*GitConfig)
		field string
	}{
		{"empty url", func(c *GitConfig) { c.URL = "" }, SettingURL},
		{"ssh url", func(c *GitConfig) { c.URL = "ssh://git@example.test/r.git" }, SettingURL},
		{"scp-like url", func(c *GitConfig) { c.URL = "git@example.test:owner/r.git" }, SettingURL},
		{"ftp url", func(c *GitConfig) { c.URL = "ftp://example.test/r.git" }, SettingURL},
		{"bare path", func(c *GitConfig) { c.URL = "/srv/git/r.git" }, SettingURL},
		{"relative file url", func(c *GitConfig) { c.URL = "file:relative/r.git" }, SettingURL},
		{"file url with host", func(c *GitConfig) { c.URL = "file://host/srv/r.git" }, SettingURL},
		{"file url with dotdot", func(c *GitConfig) { c.URL = "file:///srv/../etc/r.git" }, SettingURL},
		{"http without host", func(c *GitConfig) { c.URL = "https:///r.git" }, SettingURL},
		{"url with query", func(c *GitConfig) { c.URL = "https://example.test/r.git?token=x" }, SettingURL},
		{"absolute path", func(c *GitConfig) { c.Path = "/metadata/snapshot.json" }, SettingPath},
		{"dotdot path", func(c *GitConfig) { c.Path = "../snapshot.json" }, SettingPath},
		{"unclean path", func(c *GitConfig) { c.Path = "metadata//snapshot.json" }, SettingPath},
		{"dot path", func(c *GitConfig) { c.Path = "./snapshot.json" }, SettingPath},
		{"dir path", func(c *GitConfig) { c.Path = "metadata/" }, SettingPath},
		{"git path", func(c *GitConfig) { c.Path = ".git/config" }, SettingPath},
		{"backslash path", func(c *GitConfig) { c.Path = `metadata\snapshot.json` }, SettingPath},
		{"branch with space", func(c *GitConfig) { c.Branch = "my branch" }, SettingBranch},
		{"branch with dotdot", func(c *GitConfig) { c.Branch = "a..b" }, SettingBranch},
		{"branch ending in .lock", func(c *GitConfig) { c.Branch = "main.lock" }, SettingBranch},
		{"branch starting with dash", func(c *GitConfig) { c.Branch = "-main" }, SettingBranch},
		{"branch with colon", func(c *GitConfig) { c.Branch = "a:b" }, SettingBranch},
		{"branch with trailing slash", func(c *GitConfig) { c.Branch = "main/" }, SettingBranch},
		{"branch HEAD", func(c *GitConfig) { c.Branch = "HEAD" }, SettingBranch},
		{"branch with @{", func(c *GitConfig) { c.Branch = "a@{1}" }, SettingBranch},
		{"token with newline", func(c *GitConfig) { c.Token = "abc\n" }, SettingToken},
		{"author with angle", func(c *GitConfig) { c.AuthorName = "Bob <b>" }, SettingAuthorName},
		{"email with newline", func(c *GitConfig) { c.AuthorEmail = "a@b\nc" }, SettingAuthorEmail},
		{"no work dir", func(c *GitConfig) { c.WorkDir = "" }, ""},
		{"negative attempts", func(c *GitConfig) { c.MaxPushAttempts = -1 }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := ok
			tt.edit(&c)
			err := c.Validate()
			require.Error(t, err)
			require.Equal(t, seedengine.EINVALID, seedengine.ErrorCode(err))
			require.Equal(t, tt.field, seedengine.ErrorField(err))
			if tt.field != "" {
				require.Contains(t, err.Error(), "--"+tt.field)
			}
			_, err = NewSyncer(c, nil)
			require.Error(t, err)
		})
	}

	// Messages never echo a URL or token.
	c := ok
	c.URL = "ssh://user:hunter2@example.test/r.git"
	require.NotContains(t, c.Validate().Error(), "hunter2")
	c = ok
	c.Token = "hunter2 x"
	require.NotContains(t, c.Validate().Error(), "hunter2")
}

func TestRedactedURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://example.test/o/r.git":                "https://example.test/o/r.git",
		"https://user:secret@example.test/o/r.git":    "https://example.test/o/r.git",
		"https://tokenonly@example.test/o/r.git":      "https://example.test/o/r.git",
		"http://u:p@127.0.0.1:9/r.git?x=secret#frag":  "http://127.0.0.1:9/r.git",
		"file:///srv/git/r.git":                       "file:///srv/git/r.git",
		"user:secret@host:r.git":                      invalidURLMarker,
		"https://user:sec%zzret@example.test/o/r.git": invalidURLMarker,
		"": invalidURLMarker,
	} {
		require.Equal(t, want, GitConfig{URL: in}.RedactedURL(), in)
	}
}

func TestErrorsAreScrubbed(t *testing.T) {
	t.Parallel()
	s := newSyncer(t, GitConfig{URL: "https://bob:p%40ss@example.test/r.git", Token: "tok/en+1"}, nil)
	cause := fmt.Errorf("dial %s: Authorization: Basic %s; %s %s %s %s: %w",
		"https://bob:p%40ss@example.test/r.git",
		"eC1hY2Nlc3MtdG9rZW46dG9rL2VuKzE=", // x-access-token:tok/en+1
		"bob:p%40ss", "p@ss", "tok/en+1", "tok%2Fen%2B1", transport.ErrAuthorizationFailed)
	err := s.wrap("fetch", cause)
	for _, secret := range []string{"p@ss", "p%40ss", "tok/en+1", "tok%2Fen%2B1", "eC1hY2Nlc3MtdG9rZW46dG9rL2VuKzE=", "bob:"} {
		require.NotContains(t, err.Error(), secret)
	}
	require.Contains(t, err.Error(), "https://example.test/r.git")
	require.ErrorIs(t, err, transport.ErrAuthorizationFailed)
	require.Nil(t, errors.Unwrap(err), "the unscrubbed cause is not reachable")
	// The token goes with the URL's user name.
	auth, ok := s.auth.(*githttp.BasicAuth)
	require.True(t, ok)
	require.Equal(t, "bob", auth.Username)
	require.Equal(t, "tok/en+1", auth.Password)
}

// pushSymlink commits a symbolic link name → target on main of the remote,
// as a hostile writer could.
func pushSymlink(t testing.TB, remoteURL, name, target string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "hostile")
	runGit(t, filepath.Dir(dir), "init", "-q", "-b", "main", dir)
	runGit(t, dir, "remote", "add", "origin", remoteURL)
	if _, err := tryGit(dir, "fetch", "-q", "origin", "main"); err == nil {
		runGit(t, dir, "reset", "-q", "--hard", "FETCH_HEAD")
	}
	require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
	require.NoError(t, os.Symlink(target, filepath.Join(dir, name)))
	runGit(t, dir, "add", name)
	runGit(t, dir, "commit", "-q", "-m", "hostile: "+name)
	runGit(t, dir, "push", "-q", "origin", "HEAD:refs/heads/main")
}

func TestSyncNeverWritesThroughSymlinks(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	victim := filepath.Join(base, "victim.db")
	require.NoError(t, os.WriteFile(victim, []byte("precious"), 0o600))
	workDir := filepath.Join(base, "data", "metadata-git")

	// The snapshot's own path is a link out of the work tree: it is
	// replaced by a regular file, the victim is untouched.
	_, remote := newBare(t)
	pushSymlink(t, remote, "metadata/snapshot.json", "../../../victim.db")
	s := newSyncer(t, GitConfig{URL: remote, WorkDir: workDir}, nil)
	res, err := s.Sync(t.Context(), []byte(`{"totals":{}}`), "snapshot", nil)
	require.NoError(t, err)
	require.True(t, res.Changed)
	b, err := os.ReadFile(victim)
	require.NoError(t, err)
	require.Equal(t, "precious", string(b))
	fi, err := os.Lstat(filepath.Join(workDir, "metadata", "snapshot.json"))
	require.NoError(t, err)
	require.True(t, fi.Mode().IsRegular())

	// A parent directory that is a link is refused.
	_, remote2 := newBare(t)
	pushSymlink(t, remote2, "metadata", "..")
	s2 := newSyncer(t, GitConfig{URL: remote2, WorkDir: filepath.Join(base, "data2", "metadata-git")}, nil)
	_, err = s2.Sync(t.Context(), []byte(`{"totals":{}}`), "snapshot", nil)
	require.ErrorContains(t, err, "not a directory in the repository")
	b, err = os.ReadFile(victim)
	require.NoError(t, err)
	require.Equal(t, "precious", string(b))
}
