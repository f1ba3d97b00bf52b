-- A faithful archive (issue 34): a page whose URL redirects keeps every
-- hop in its WARC file, each with its own request and response records,
-- before the page's own. final_url is the URL that answered with the
-- page when it differs from url; hops_json the hops, oldest first, as
-- JSON [{"url","status","location","offset","length"}] (offsets in the
-- page's file), '' when there were none.
ALTER TABLE pages ADD COLUMN final_url TEXT NOT NULL DEFAULT '';
ALTER TABLE pages ADD COLUMN hops_json TEXT NOT NULL DEFAULT '';
