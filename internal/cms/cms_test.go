package cms_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/cms"
)

func TestDetect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		generator string
		body      string
		header    http.Header
		want      string
		evidence  string
	}{
		{"wordpress generator", "WordPress 6.4.3", `<link rel="stylesheet" href="/wp-content/themes/x/style.css">`, nil, "wordpress", `generator "WordPress 6.4.3"`},
		{"wordpress without generator", "", `<script src="https://www.example.com/wp-includes/js/jquery/jquery.min.js"></script><link rel="https://api.w.org/" href="/wp-json/">`, nil, "wordpress", `marker "/wp-includes/"`},
		{"wordpress by Link header", "", `<html></html>`, http.Header{"Link": {`<https://example.com/wp-json/>; rel="https://api.w.org/"`}}, "wordpress", `header Link: "<https://example.com/wp-json/>; rel=\"https://api.w.org/\""`},
		{"arc xp", "", `<script id="fusion-metadata">window.Fusion=window.Fusion||{};Fusion.arcSite="example";</script><script src="/pf/dist/engine/react.js"></script>`, nil, "arc_xp", `marker "/pf/dist/"`},
		{"drupal", "Drupal 10 (https://www.drupal.org)", `<script type="application/json" data-drupal-selector="drupal-settings-json">{}</script>`, nil, "drupal", `generator "Drupal 10 (https://www.drupal.org)"`},
		{"drupal by header", "", ``, http.Header{"X-Generator": {"Drupal 9 (https://www.drupal.org)"}}, "drupal", `header X-Generator: "Drupal 9 (https://www.drupal.org)"`},
		{"typo3", "TYPO3 CMS", `<link rel="stylesheet" href="/typo3conf/ext/site/Resources/Public/Css/main.css">`, nil, "typo3", `generator "TYPO3 CMS"`},
		{"ghost", "Ghost 5.82", `<script defer src="https://cdn.jsdelivr.net/ghost/portal@~2.37/umd/portal.min.js" data-ghost="https://x.example/"></script>`, nil, "ghost", `generator "Ghost 5.82"`},
		{"joomla", "Joomla! - Open Source Content Management", `<script src="/media/jui/js/jquery.min.js"></script>`, nil, "joomla", `generator "Joomla! - Open Source Content Management"`},
		{"blogger", "blogger", `<link href="https://www.blogger.com/static/v1/widgets/css.css" rel="stylesheet">`, nil, "blogger", `generator "blogger"`},
		{"brightspot", "", `<meta name="brightspot.contentId" content="00000189-1234">`, nil, "brightspot", `marker "brightspot.contentId"`},
		{"blox", "", `<script src="https://bloximages.chicago2.vip.townnews.com/x/tncms/assets/v3/editorial/js/site.js"></script>`, nil, "blox", `marker "/tncms/"`},
		{"squarespace", "", `<!-- This is Squarespace. --><link href="https://static1.squarespace.com/static/x.css">`, nil, "squarespace", `marker "This is Squarespace."`},
		{"hugo", "Hugo 0.121.1", ``, nil, "hugo", `generator "Hugo 0.121.1"`},
		{"pelican", "Pelican", ``, nil, "pelican", `generator "Pelican"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := cms.Detect(tt.generator, []byte(tt.body), tt.header)
			require.NotEmpty(t, got)
			require.Equal(t, tt.want, got[0].Profile.Name)
			require.Equal(t, tt.evidence, got[0].Evidence)
		})
	}
}

func TestDetectNothing(t *testing.T) {
	t.Parallel()
	require.Empty(t, cms.Detect("", []byte(`<html><head><title>Plain</title></head><body><a href="/news/">News</a></body></html>`), http.Header{"Link": {`</style.css>; rel=preload`}}))
}

func TestDetectOrder(t *testing.T) {
	t.Parallel()
	// A generator names the CMS more surely than an embedded asset of another.
	got := cms.Detect("Drupal 10", []byte(`<img src="https://example.com/wp-content/uploads/x.png">`), nil)
	require.Len(t, got, 2)
	require.Equal(t, "drupal", got[0].Profile.Name)
	require.Equal(t, "wordpress", got[1].Profile.Name)
}

func TestProfiles(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, p := range cms.Profiles() {
		require.False(t, seen[p.Name], p.Name)
		seen[p.Name] = true
		require.NotEmpty(t, p.Feeds, p.Name)
		for _, f := range append(append(p.Feeds, p.NewsSitemaps...), p.Sitemaps...) {
			require.Equal(t, byte('/'), f[0], "%s: %s is a path", p.Name, f)
		}
		require.Same(t, p, cms.Lookup(p.Name))
	}
	require.Nil(t, cms.Lookup("nope"))
	require.Equal(t, "/news?format=rss", cms.Lookup("squarespace").SectionFeed("/news/"))
	require.Equal(t, "/news/feed/", cms.Lookup("wordpress").SectionFeed("/news"))
	require.Equal(t, "/arc/outboundfeeds/rss/category/sports/?outputType=xml", cms.Lookup("arc_xp").SectionFeed("/sports/"))
	require.Equal(t, "/politik.rss", cms.Lookup("brightspot").SectionFeed("/politik/"))
}
