package console

import (
	"encoding/json"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/seedengine/seedengine"
)

// Read now: an active seed's page queues a read of its entry, as
// POST /api/v1/seeds/{seedId}/check does, and then says what became of
// it. The seed's page after the action carries, in its query, the id of
// the seed's newest check when the read was asked for (read), when it
// was asked for (read_at) and whether it joined a read already waiting
// (read_joined); the notice is the first check newer than that, once
// there is one: the seed's latest (GET /api/v1/seeds/{seedId}/checks?limit=1).
// Until then the notice is fetched again (part=read), in a live region,
// so the words that change are announced.

// readNowWait is how long a read's notice waits for the read to run
// before it stops asking: the queue may be stopped, or busy.
const readNowWait = 10 * time.Minute

// readNow is the notice of a read asked for from a seed's page.
type readNow struct {
	SeedID string
	After  int64     // the id of the seed's newest check when the read was asked for; 0 for none
	At     time.Time // when it was asked for, by the console's clock; zero when the query lacks it
	Joined bool      // a read asked for now was already waiting: the notice is that one's
	// Check is the seed's latest check, once one newer than After is
	// recorded: the read, or one that ran after it was asked for.
	Check  *seedengine.SeedCheck
	GaveUp bool   // not run within readNowWait of At
	Err    string // why the checks could not be read this time
	// Refresh is where the notice is fetched again until Final; Back the
	// seed's page without the notice (its harvest as it is now).
	Refresh, Back template.URL
}

// Final reports whether the notice will not change: the read ran, or it
// was waited for long enough.
func (n *readNow) Final() bool { return n.Check != nil || n.GaveUp }

// Wait is readNowWait in words.
func (*readNow) Wait() string { return strconv.Itoa(int(readNowWait.Minutes())) + " minutes" }

// latestCheck is the seed's newest check, nil when it has none.
func (c *Console) latestCheck(r *http.Request, id string) (*seedengine.SeedCheck, *problem) {
	var l struct {
		Items []seedengine.SeedCheck `json:"items"`
	}
	if p := c.get(r, "/api/v1/seeds/"+pathEscape(id)+"/checks?limit=1", &l); p != nil {
		return nil, p
	}
	if len(l.Items) == 0 {
		return nil, nil
	}
	return &l.Items[0], nil
}

// readNow queues a read of seed id through the API and returns where the
// browser goes next: back (the seed's page) with the read's notice.
func (c *Console) readNow(r *http.Request, id, back string) (string, *problem) {
	latest, p := c.latestCheck(r, id)
	if p != nil {
		return "", p
	}
	res := c.call(r, http.MethodPost, "/api/v1/seeds/"+pathEscape(id)+"/check", "", nil)
	if p := res.Error(); p != nil {
		return "", p
	}
	var queued struct {
		Queued bool `json:"queued"`
	}
	if json.Unmarshal(res.Body, &queued) != nil {
		return "", &problem{Status: http.StatusBadGateway, Detail: "the API answered something the console cannot read"}
	}
	q := url.Values{"read": {"0"}, "read_at": {strconv.FormatInt(c.cfg.Now().Unix(), 10)}}
	if latest != nil {
		q.Set("read", strconv.FormatInt(latest.ID, 10))
	}
	if !queued.Queued {
		q.Set("read_joined", "1")
	}
	if !strings.HasSuffix(back, "?") {
		back += "&"
	}
	return back + q.Encode(), nil
}

// readNowOf is the read notice the request's query asks for on the page
// of seed id (f the list it was opened from), with the seed's latest
// check; nil when the query asks for none.
func (c *Console) readNowOf(r *http.Request, id string, f seedFilter) *readNow {
	q := r.URL.Query()
	after, err := strconv.ParseInt(q.Get("read"), 10, 64)
	if err != nil || after < 0 {
		return nil
	}
	n := &readNow{SeedID: id, After: after, Joined: q.Get("read_joined") == "1"}
	rq := url.Values{"read": {strconv.FormatInt(after, 10)}, "part": {"read"}}
	if sec, err := strconv.ParseInt(q.Get("read_at"), 10, 64); err == nil && sec > 0 {
		n.At = time.Unix(sec, 0).UTC()
		rq.Set("read_at", strconv.FormatInt(sec, 10))
	}
	if n.Joined {
		rq.Set("read_joined", "1")
	}
	page := "/console/seeds/" + pathEscape(id) + "?" + f.Query()
	n.Back, n.Refresh = template.URL(page), template.URL(page+"&"+rq.Encode())
	latest, p := c.latestCheck(r, id)
	switch {
	case p != nil:
		n.Err = p.Detail
	case latest != nil && latest.ID > after:
		n.Check = latest
		return n
	}
	if !n.At.IsZero() && c.cfg.Now().Sub(n.At) > readNowWait {
		n.GaveUp = true
	}
	return n
}

// handleSeedRead is the read notice alone (?part=read on a seed's page),
// fetched again by the page until the read has run.
func (c *Console) handleSeedRead(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	n := c.readNowOf(r, r.PathValue("id"), readFilter(q))
	if n == nil {
		c.renderError(w, r, nil, http.StatusNotFound, "No read was asked for.")
		return
	}
	c.render(w, r, http.StatusOK, "read_fragment", page{Data: n})
}
