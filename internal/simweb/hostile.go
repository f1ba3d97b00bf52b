package simweb

import (
	"fmt"
	"html"
	"net/http"
	"strings"
)

// The pages of the blocked and parked scenarios imitate the real ones closely
// enough that a classifier tuned on them works on the web: same titles, same
// vendor markers, same headers. Variants are chosen by host hash so that a
// generated web has all of them.

func rayID(h uint64) string { return fmt.Sprintf("%016x", h)[:16] }

func serveBotWall(rw http.ResponseWriter, status int, host string, h uint64) {
	hdr := rw.Header()
	eh := html.EscapeString(host)
	var body string
	switch h % 3 {
	case 0: // Akamai
		hdr.Set("Server", "AkamaiGHost")
		hdr.Set("Cache-Control", "max-age=0, no-cache, no-store")
		ref := fmt.Sprintf("18&#46;%x&#46;%d&#46;%x", h>>40, 1700000000+h%100000000, h&0xffffff)
		body = "<HTML><HEAD>\n<TITLE>Access Denied</TITLE>\n</HEAD><BODY>\n<H1>Access Denied</H1>\n \n" +
			"You don't have permission to access \"http&#58;&#47;&#47;" + eh + "&#47;\" on this server.<P>\n" +
			"Reference&#32;&#35;" + ref + "\n<P>https&#58;&#47;&#47;errors&#46;edgesuite&#46;net&#47;" + ref + "</P>\n</BODY>\n</HTML>\n"
	case 1: // Cloudflare block
		ray := rayID(h)
		hdr.Set("Server", "cloudflare")
		hdr.Set("CF-RAY", ray+"-SIN")
		body = `<!DOCTYPE html>
<!--[if lt IE 7]> <html class="no-js ie6 oldie" lang="en-US"> <![endif]-->
<html class="no-js" lang="en-US">
<head>
<title>Attention Required! | Cloudflare</title>
<meta charset="UTF-8" />
<meta name="robots" content="noindex, nofollow" />
<link rel="stylesheet" id="cf_styles-css" href="/cdn-cgi/styles/cf.errors.css" />
</head>
<body>
  <div id="cf-wrapper">
    <div id="cf-error-details" class="cf-error-details-wrapper">
      <div class="cf-wrapper cf-header cf-error-overview">
        <h1 data-translate="block_headline">Sorry, you have been blocked</h1>
        <h2 class="cf-subheadline"><span data-translate="unable_to_access">You are unable to access</span> ` + eh + `</h2>
      </div>
      <div class="cf-section cf-wrapper">
        <h2 data-translate="blocked_why_headline">Why have I been blocked?</h2>
        <p data-translate="blocked_why_detail">This website is using a security service to protect itself from online attacks. The action you just performed triggered the security solution.</p>
      </div>
      <div class="cf-error-footer cf-wrapper">
        <p><span class="cf-footer-item">Cloudflare Ray ID: <strong class="font-semibold">` + ray + `</strong></span>
        <span class="cf-footer-item">Performance &amp; security by <a rel="noopener noreferrer" href="https://www.cloudflare.com/5xx-error-landing" id="brand_link" target="_blank">Cloudflare</a></span></p>
      </div>
    </div>
  </div>
</body>
</html>
`
	default: // Imperva / Incapsula
		hdr.Set("X-CDN", "Imperva")
		hdr.Set("X-Iinfo", fmt.Sprintf("%d-%d-%d NNNN CT(0 0 0) RT(1 0) q(0 -1 -1 0) r(0 -1)", h%100, h%1000000, h%10000))
		body = `<html style="height:100%"><head><META NAME="ROBOTS" CONTENT="NOINDEX, NOFOLLOW"><meta name="format-detection" content="telephone=no"><meta name="viewport" content="initial-scale=1.0"><meta http-equiv="X-UA-Compatible" content="IE=edge,chrome=1"></head><body style="margin:0px;height:100%"><iframe id="main-iframe" src="/_Incapsula_Resource?CWUDNSAI=23&xinfo=` +
			fmt.Sprintf("%d-%d", h%100, h%1000000) + `&incident_id=` + fmt.Sprintf("%d-%d", 500000000+h%100000000, h%1000000000000) +
			`&edet=15&cinfo=04000000&pe=631&rpinfo=0" frameborder=0 width="100%" height="100%" marginheight="0px" marginwidth="0px">Request unsuccessful. Incapsula incident ID: ` +
			fmt.Sprintf("%d-%d", 500000000+h%100000000, h%1000000000000) + `</iframe></body></html>`
	}
	writeBody(rw, status, "text/html; charset=utf-8", []byte(body))
}

// serveChallenge is Cloudflare's managed challenge ("Just a moment..."), the
// interstitial most often met by crawlers: it needs JavaScript and cookies,
// so a fetcher must recognise it rather than take it for content.
func serveChallenge(rw http.ResponseWriter, status int, host string, h uint64) {
	ray := rayID(h)
	tk := fmt.Sprintf("%016x", h*0x9e3779b97f4a7c15) // fixed width: tk[:15] below
	hdr := rw.Header()
	hdr.Set("Server", "cloudflare")
	hdr.Set("CF-RAY", ray+"-SIN")
	hdr.Set("cf-mitigated", "challenge")
	hdr.Set("Cache-Control", "private, max-age=0, no-store, no-cache, must-revalidate, post-check=0, pre-check=0")
	hdr.Set("Cross-Origin-Opener-Policy", "same-origin")
	eh := html.EscapeString(host)
	body := `<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title><meta http-equiv="Content-Type" content="text/html; charset=UTF-8"><meta http-equiv="X-UA-Compatible" content="IE=Edge"><meta name="robots" content="noindex,nofollow"><meta name="viewport" content="width=device-width,initial-scale=1"><link href="/cdn-cgi/styles/challenges.css" rel="stylesheet"></head><body class="no-js"><div class="main-wrapper" role="main"><div class="main-content"><h1 class="zone-name-title h1">` +
		eh + `</h1><h2 class="h2" id="challenge-running">Checking your browser before accessing ` + eh +
		`.</h2><noscript><div id="challenge-error-title"><div class="h2"><span class="icon-wrapper"><div class="heading-icon warning-icon"></div></span><span id="challenge-error-text">Enable JavaScript and cookies to continue</span></div></div></noscript><div id="trk_jschal_js" style="display:none;background-image:url('/cdn-cgi/images/trace/managed/nojs/transparent.gif?ray=` +
		ray + `')"></div><form id="challenge-form" action="/?__cf_chl_f_tk=` + tk + `" method="POST" enctype="application/x-www-form-urlencoded"><input type="hidden" name="md" value="` + tk + tk +
		`"></form></div></div><script>(function(){window._cf_chl_opt={cvId: '3',cZone: '` + eh + `',cType: 'managed',cNounce: '` + fmt.Sprint(h%100000) +
		`',cRay: '` + ray + `',cHash: '` + tk[:15] + `',cUPMDTk: "\/?__cf_chl_tk=` + tk + `",cFPWv: 'g',cTTimeMs: '1000',cMTimeMs: '0',cTplV: 5,cTplB: 'cf',cK: "",cRq: {ru: 'aHR0cHM6Ly8=',ra: 'TW96aWxsYS81LjA=',rm: 'R0VU',d: '',t: 'MTcwMDAwMDAwMC4wMDAwMDA=',cT: Math.floor(Date.now() / 1000),m: '',i1: '',i2: '',zh: '',uh: '',hh: ''}};var cpo = document.createElement('script');cpo.src = '/cdn-cgi/challenge-platform/h/g/orchestrate/managed/v1?ray=` +
		ray + `';window._cf_chl_opt.cOgUHash = location.hash === '' && location.href.indexOf('#') !== -1 ? '#' : location.hash;window._cf_chl_opt.cOgUQuery = location.search === '' && location.href.slice(0, location.href.length - window._cf_chl_opt.cOgUHash.length).indexOf('?') !== -1 ? '?' : location.search;if (window.history && window.history.replaceState) {var ogU = location.pathname + window._cf_chl_opt.cOgUQuery + window._cf_chl_opt.cOgUHash;history.replaceState(null, null, "\/?__cf_chl_rt_tk=` +
		tk + `" + window._cf_chl_opt.cOgUHash);cpo.onload = function() {history.replaceState(null, null, ogU);}}document.getElementsByTagName('head')[0].appendChild(cpo);}());</script></body></html>`
	writeBody(rw, status, "text/html; charset=UTF-8", []byte(body))
}

// serveParked imitates the landing pages of the big parking and domain
// marketplace services.
func serveParked(rw http.ResponseWriter, status int, host string, h uint64) {
	eh := html.EscapeString(host)
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">`)
	switch h % 4 {
	case 0: // Sedo
		b.WriteString(`<title>` + eh + ` - This domain is for sale!</title><meta name="description" content="This domain may be for sale!">` +
			`<script src="https://img.sedoparking.com/templates/js/sedo_parking.js"></script></head><body>` +
			`<div id="banner"><a href="https://sedo.com/search/details/?domain=` + eh + `&origin=parking&partnerid=324561&language=us">` +
			`This domain is for sale! Buy ` + eh + ` now on Sedo.</a></div>` +
			`<h1>` + eh + `</h1><div class="rs"><h2>Related Searches</h2><ul><li><a href="/?q=insurance">Insurance</a></li><li><a href="/?q=travel">Travel</a></li><li><a href="/?q=loans">Loans</a></li></ul></div>` +
			`<footer>Copyright &copy; Sedo Domain Parking. Disclaimer: Domain owner and Sedo maintain no relationship with third party advertisers.</footer>`)
	case 1: // Bodis
		b.WriteString(`<title>` + eh + `</title><script>window.park = "eyJ1dWlkIjoiYm9kaXMifQ==";</script>` +
			`<script src="/bMzTKnbhv.js"></script></head><body><div id="target"></div>` +
			`<div class="sale-banner">This domain is for sale. <a href="https://www.bodis.com/domain-inquiry?domain=` + eh + `">Inquire about ` + eh + `</a></div>` +
			`<noscript>Parking powered by bodis.com</noscript>`)
	case 2: // ParkingCrew
		b.WriteString(`<title>` + eh + ` - This domain is for sale</title>` +
			`<script src="https://www.parkingcrew.net/jsparkcaf.js"></script><script src="https://www.google.com/adsense/domains/caf.js"></script></head><body>` +
			`<div id="header"><h1>` + eh + `</h1><p>This domain is for sale. Contact the owner.</p></div><div id="relatedsearches1"></div>` +
			`<div id="footer">2024 Copyright. All Rights Reserved. The Sponsored Listings displayed above are served automatically by a third party. Parking by <a href="https://www.parkingcrew.com">ParkingCrew</a></div>`)
	default: // Dan.com
		b.WriteString(`<title>` + eh + ` is for sale | Dan.com</title><meta name="robots" content="noindex"></head><body>` +
			`<main><h1>The domain name ` + eh + ` is for sale</h1><p>This domain is for sale. Buy now or make an offer.</p>` +
			`<a class="buy-button" href="https://dan.com/buy-domain/` + eh + `?redirected=true">Buy now</a>` +
			`<ul><li>Buyer Protection program</li><li>Fast &amp; easy transfers</li><li>Hassle free payments</li></ul></main>` +
			`<footer>Powered by Dan.com, a GoDaddy brand</footer>`)
	}
	b.WriteString("</body></html>\n")
	writeBody(rw, status, "text/html; charset=utf-8", []byte(b.String()))
}
