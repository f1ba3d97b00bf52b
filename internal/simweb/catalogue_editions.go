package simweb

import (
	"strconv"
	"time"
)

// The entries of this file imitate publishers with language editions on
// hosts of one registrable domain (www., de., fr., …): each edition has its
// own home page in its own language, its own feed, robots.txt and sitemap.
// A search makes one seed per edition: the edition in a language of the
// domain_id's country is the default (Expect), the others are extra seeds
// (Editions). One entry names its editions with hreflang alternates, the
// other only with a language switcher's links.

// editionSeed is the news seed of one edition.
func editionSeed(lang, fetchType, entryURL string) ExpectedSeed {
	return ExpectedSeed{ContentType: "news", FetchType: fetchType, EntryURL: entryURL, Edition: lang}
}

// editionSitemap serves a plain sitemap of an edition's home, section
// fronts and stories, and the host's robots.txt naming it.
func editionSitemap(p *pubSite, loc *time.Location, robots string) {
	base := p.c.base
	urls := []smURL{{loc: base + "/", lastmod: p.list[0].time, changefreq: "hourly", priority: "1.0"}}
	for _, s := range p.slugs() {
		urls = append(urls, smURL{loc: base + p.sectionOf(s), lastmod: inSection(p.list, s)[0].time, changefreq: "hourly", priority: "0.8"})
	}
	urls = append(urls, articleURLs(base, p.list)...)
	p.h.xml("/sitemap.xml", urlset(loc, urls, false))
	p.h.text("/robots.txt", robots+"\nSitemap: "+base+"/sitemap.xml\n")
}

func editionsHreflang() CatalogueEntry {
	const apex = "eurokanal-example.com"
	const en, de, fr = "https://www." + apex, "https://de." + apex, "https://fr." + apex
	const static = "https://static." + apex
	enFeed, deFeed, frFeed := en+"/rss/top-stories.xml", de+"/rss/top-stories.xml", fr+"/rss/a-la-une.xml"
	return CatalogueEntry{
		Name:       "editions_hreflang",
		ModelledOn: "International broadcaster in the manner of Euronews/DW: one edition per language on its own host (www. English, de. German, fr. French; the apex redirects to www.), every edition's home <head> naming all three with hreflang alternates and x-default → www., and declaring only its own RSS; the header's edition picker is a <select>, not links; robots.txt and a plain sitemap per host",
		DomainID:   "media:de:" + apex,
		Expect:     editionSeed("de", "rss", deFeed),
		Editions:   []ExpectedSeed{editionSeed("en", "rss", enFeed), editionSeed("fr", "rss", frFeed)},
		build: func(b *builder) {
			b.redirectWWW(apex)
			hreflang := "<link rel=\"alternate\" hreflang=\"en\" href=\"" + en + "/\">\n" +
				"<link rel=\"alternate\" hreflang=\"de\" href=\"" + de + "/\">\n" +
				"<link rel=\"alternate\" hreflang=\"fr\" href=\"" + fr + "/\">\n" +
				"<link rel=\"alternate\" hreflang=\"x-default\" href=\"" + en + "/\">\n"
			locales := map[string]string{"en": "en_GB", "de": "de_DE", "fr": "fr_FR"}
			// picker is the header's edition <select>: a script follows the
			// chosen option, there is no anchor to another edition.
			picker := func(lang, label string) string {
				opt := func(l, href, text string) string {
					sel := ""
					if l == lang {
						sel = " selected"
					}
					return "<option value=\"" + href + "/\" lang=\"" + l + "\"" + sel + ">" + text + "</option>"
				}
				return "<div class=\"edition-picker\"><label for=\"edition-select\" class=\"visually-hidden\">" + esc(label) + "</label>" +
					"<select id=\"edition-select\" name=\"edition\" onchange=\"window.location.href=this.value\">" +
					opt("en", en, "English") + opt("de", de, "Deutsch") + opt("fr", fr, "Français") + "</select></div>"
			}
			// edition builds one host; the caller's cfg holds the edition's
			// words, this adds what all editions share.
			edition := func(cfg stdConfig, lang, feedURL, feedTitle, feedDesc, pickerLabel string, n int, robots string) {
				base := "https://" + cfg.host
				var ogAlt string
				for _, l := range []string{"en", "de", "fr"} {
					if l != lang {
						ogAlt += "<meta property=\"og:locale:alternate\" content=\"" + locales[l] + "\">\n"
					}
				}
				cfg.name, cfg.htmlLang, cfg.loc, cfg.seed = "EuroKanal", lang, zoneCET, "eurokanal-"+lang
				cfg.path = func(a article) string {
					return "/" + a.section + "/" + slugify(a.title) + "/a-" + strconv.Itoa(68400000+a.id)
				}
				cfg.n, cfg.every = 32, 55*time.Minute
				cfg.head = "<link rel=\"preconnect\" href=\"" + static + "\">\n" +
					"<link rel=\"stylesheet\" href=\"" + static + "/build/css/main.5d1e9b.css\">\n" +
					"<meta property=\"og:locale\" content=\"" + locales[lang] + "\">\n" + ogAlt +
					"<link rel=\"alternate\" type=\"application/rss+xml\" title=\"" + esc(feedTitle) + "\" href=\"" + feedURL + "\">\n" +
					"<meta name=\"apple-itunes-app\" content=\"app-id=1230000004\">\n" + jsonLD("EuroKanal", base)
				cfg.homeHead = hreflang
				cfg.headerTop = picker(lang, pickerLabel)
				cfg.footerExtra = social("EuroKanal", "facebook", "x", "instagram", "youtube", "tiktok") +
					appBadges("1230000004", "com.eurokanal.app", "App Store", "Google Play")
				cfg.cookie = "<script src=\"https://sdk.privacy-center.org/3f2c7a1e-eurokanal/loader.js?target=" + cfg.host + "\" async></script>\n<div id=\"didomi-host\"></div>\n"
				cfg.copyright = "© " + strconv.Itoa(b.now.Year()) + " EuroKanal"
				p := b.stdSite(cfg)
				ch := channel{title: feedTitle, link: base + "/", description: feedDesc, lang: lang, self: feedURL, ttl: "10",
					copyright: cfg.copyright, loc: zoneCET}
				path := feedURL[len(base):]
				p.h.rss(path, rss2(ch, base, p.list[:n], rssOpts{media: static + "/articles/" + lang, categoryTag: true,
					guid: func(a article) string { return "ek-" + lang + "-" + strconv.Itoa(a.id) }}))
				editionSitemap(p, zoneCET, robots)
			}

			edition(stdConfig{host: "www." + apex, lang: "en-intl", desc: "Latest news from Europe and the world: politics, business, climate, culture and tech.",
				sections: []string{"europe:Europe", "world:World", "business:Business", "green:Green", "culture:Culture", "next:Tech"},
				newest:   35 * time.Minute, by: "By", moreText: "More", dateFmt: "02/01/2006 - 15:04",
				topLinks: []link{{en + "/live", "Live"}, {en + "/programmes", "Programmes"}, {en + "/newsletters", "Newsletters"}, {en + "/account/login", "Sign in"}},
				footerCols: []footerCol{
					{"EuroKanal", []link{{en + "/about", "About us"}, {en + "/contact", "Contact"}, {en + "/careers", "Careers"}, {en + "/press", "Press"}}},
					{"Services", []link{{en + "/newsletters", "Newsletters"}, {en + "/apps", "Apps"}, {en + "/podcasts", "Podcasts"}, {en + "/live", "Live"}}},
					{"Legal", []link{{en + "/privacy-policy", "Privacy policy"}, {en + "/cookies", "Cookie settings"}, {en + "/terms-of-use", "Terms of use"}, {en + "/imprint", "Imprint"}}},
				},
				authors: []string{"EuroKanal with AFP, Reuters", "Laura Whitfield", "Marc Dubois"},
			}, "en", enFeed, "EuroKanal - Top stories", "The top stories from EuroKanal, Europe's news channel.", "Edition", 18,
				"User-agent: *\nDisallow: /api/\nDisallow: /search\nDisallow: /account/\nAllow: /rss/\n\nUser-agent: GPTBot\nDisallow: /\n")

			edition(stdConfig{host: "de." + apex, lang: "de-intl", desc: "Aktuelle Nachrichten aus Europa und der Welt: Politik, Wirtschaft, Klima, Kultur und Digitales.",
				sections: []string{"europa:Europa", "welt:Welt", "wirtschaft:Wirtschaft", "klima:Klima", "kultur:Kultur", "digital:Digital"},
				newest:   1*time.Hour + 10*time.Minute, by: "Von", moreText: "Mehr", dateFmt: "02.01.2006 - 15:04",
				notFoundTitle: "Seite nicht gefunden", notFoundText: "Die angeforderte Seite existiert leider nicht oder wurde verschoben.",
				topLinks: []link{{de + "/live", "Live"}, {de + "/sendungen", "Sendungen"}, {de + "/newsletter", "Newsletter"}, {de + "/konto/anmelden", "Anmelden"}},
				footerCols: []footerCol{
					{"EuroKanal", []link{{de + "/ueber-uns", "Über uns"}, {de + "/kontakt", "Kontakt"}, {de + "/karriere", "Karriere"}, {de + "/presse", "Presse"}}},
					{"Service", []link{{de + "/newsletter", "Newsletter"}, {de + "/apps", "Apps"}, {de + "/podcasts", "Podcasts"}, {de + "/live", "Live"}}},
					{"Rechtliches", []link{{de + "/datenschutz", "Datenschutz"}, {de + "/cookies", "Cookie-Einstellungen"}, {de + "/nutzungsbedingungen", "Nutzungsbedingungen"}, {de + "/impressum", "Impressum"}}},
				},
				authors: []string{"EuroKanal mit dpa, AFP", "Jana Krüger", "Tobias Wendt"},
			}, "de", deFeed, "EuroKanal - Top-Nachrichten", "Die wichtigsten Nachrichten von EuroKanal, dem Nachrichtensender für Europa.", "Ausgabe", 16,
				"User-agent: *\nDisallow: /api/\nDisallow: /suche\nDisallow: /konto/\nAllow: /rss/\n\nUser-agent: GPTBot\nDisallow: /\n")

			edition(stdConfig{host: "fr." + apex, lang: "fr-intl", desc: "L'actualité de l'Europe et du monde : politique, économie, climat, culture et tech.",
				sections: []string{"europe:Europe", "monde:Monde", "economie:Économie", "climat:Climat", "culture:Culture", "tech:Tech"},
				newest:   2*time.Hour + 5*time.Minute, by: "Par", moreText: "Plus", dateFmt: "02/01/2006 - 15:04",
				notFoundTitle: "Page introuvable", notFoundText: "La page demandée n'existe pas ou a été déplacée.",
				topLinks: []link{{fr + "/direct", "Direct"}, {fr + "/programmes", "Programmes"}, {fr + "/newsletters", "Newsletters"}, {fr + "/compte/connexion", "Se connecter"}},
				footerCols: []footerCol{
					{"EuroKanal", []link{{fr + "/qui-sommes-nous", "Qui sommes-nous"}, {fr + "/contact", "Contact"}, {fr + "/carrieres", "Carrières"}, {fr + "/presse", "Presse"}}},
					{"Services", []link{{fr + "/newsletters", "Newsletters"}, {fr + "/applications", "Applications"}, {fr + "/podcasts", "Podcasts"}, {fr + "/direct", "Direct"}}},
					{"Mentions", []link{{fr + "/confidentialite", "Confidentialité"}, {fr + "/cookies", "Gestion des cookies"}, {fr + "/conditions-utilisation", "Conditions d'utilisation"}, {fr + "/mentions-legales", "Mentions légales"}}},
				},
				authors: []string{"EuroKanal avec AFP", "Camille Laurent", "Julien Moreau"},
			}, "fr", frFeed, "EuroKanal - À la une", "Les principaux titres d'EuroKanal, la chaîne d'information européenne.", "Édition", 20,
				"User-agent: *\nDisallow: /api/\nDisallow: /recherche\nDisallow: /compte/\nAllow: /rss/\n\nUser-agent: GPTBot\nDisallow: /\n")
		},
	}
}

func editionsLinksOnly() CatalogueEntry {
	const apex = "elfarotarragona-example.com"
	const es, en, ca = "https://www." + apex, "https://en." + apex, "https://ca." + apex
	const static = "https://static." + apex
	esFeed, enFeed, caFeed := es+"/rss/portada.xml", en+"/rss/latest.xml", ca+"/atom/portada.xml"
	return CatalogueEntry{
		Name:       "editions_links_only",
		ModelledOn: "Spanish regional daily (Tarragona) on an in-house CMS with editions on their own hosts (www. Spanish, en. English, ca. Catalan; the apex redirects to www.): no hreflang anywhere, the editions show only as the header's language switcher (Español · English · Català, links to each home); each home's <head> declares its own feed (RSS on www. and en., Atom on ca.); robots.txt and a plain sitemap per host",
		DomainID:   "media:es:" + apex,
		Expect:     editionSeed("es", "rss", esFeed),
		Editions:   []ExpectedSeed{editionSeed("ca", "atom", caFeed), editionSeed("en", "rss", enFeed)},
		build: func(b *builder) {
			b.redirectWWW(apex)
			switcher := func(lang, label string) string {
				item := func(l, href, text string) string {
					if l == lang {
						return "<li class=\"edition-switcher__item is-current\"><a href=\"" + href + "/\" aria-current=\"true\">" + text + "</a></li>"
					}
					return "<li class=\"edition-switcher__item\"><a href=\"" + href + "/\">" + text + "</a></li>"
				}
				return "<nav class=\"edition-switcher\" aria-label=\"" + esc(label) + "\"><ul>" +
					item("es", es, "Español") + item("en", en, "English") + item("ca", ca, "Català") + "</ul></nav>"
			}
			path := func(a article) string {
				return "/" + a.section + "/" + a.time.In(zoneCET).Format("2006/01/02") + "/" + slugify(a.title) + "-" + strconv.Itoa(a.id) + ".html"
			}
			// edition builds one host with the furniture all editions share.
			edition := func(cfg stdConfig, lang, feedLink, pickerLabel string) *pubSite {
				base := "https://" + cfg.host
				cfg.htmlLang, cfg.loc, cfg.seed, cfg.path, cfg.n = lang, zoneCET, "elfaro-"+lang, path, 30
				cfg.head = "<link rel=\"stylesheet\" href=\"" + static + "/css/faro.min.css?v=4.12.3\">\n" +
					"<link rel=\"icon\" href=\"" + static + "/img/favicon.ico\">\n" + feedLink +
					"<meta name=\"twitter:site\" content=\"@elfarotgn\">\n" + jsonLD(cfg.name, base)
				cfg.headerTop = switcher(lang, pickerLabel)
				cfg.footerExtra = social("ElFaroTarragona", "facebook", "x", "instagram", "whatsapp")
				cfg.cookie = "<script id=\"spcloader\" src=\"https://sdk.privacy-center.org/9a41d7c2-elfaro/loader.js?target=" + cfg.host + "\" async></script>\n"
				return b.stdSite(cfg)
			}

			p := edition(stdConfig{host: "www." + apex, name: "El Faro de Tarragona", lang: "es-tgn",
				desc:     "Noticias de Tarragona, Reus, la Costa Daurada y las Terres de l'Ebre.",
				sections: []string{"tarragona:Tarragona", "reus:Reus", "costa-daurada:Costa Daurada", "terres-de-l-ebre:Terres de l'Ebre", "economia:Economía", "deportes:Deportes", "opinion:Opinión"},
				newest:   50 * time.Minute, every: 70 * time.Minute, by: "Por", moreText: "Más", dateFmt: "02/01/2006 15:04",
				notFoundTitle: "Página no encontrada", notFoundText: "Lo sentimos, la página que busca no existe o ha sido movida.",
				topLinks: []link{{es + "/suscripciones/", "Suscríbete"}, {es + "/newsletters/", "Newsletters"}, {es + "/usuarios/login/", "Iniciar sesión"}},
				footerCols: []footerCol{
					{"El Faro", []link{{es + "/quienes-somos/", "Quiénes somos"}, {es + "/contacto/", "Contacto"}, {es + "/publicidad/", "Publicidad"}, {es + "/trabaja-con-nosotros/", "Trabaja con nosotros"}}},
					{"Servicios", []link{{es + "/suscripciones/", "Suscripciones"}, {es + "/newsletters/", "Newsletters"}, {es + "/hemeroteca/", "Hemeroteca"}, {es + "/esquelas/", "Esquelas"}}},
					{"Legal", []link{{es + "/aviso-legal/", "Aviso legal"}, {es + "/politica-de-privacidad/", "Política de privacidad"}, {es + "/politica-de-cookies/", "Política de cookies"}}},
				},
				copyright: "© " + strconv.Itoa(b.now.Year()) + " Editorial Costa Daurada, S.L. Todos los derechos reservados.",
				authors:   []string{"Redacción", "Agencias", "Marta Ferré", "Jordi Pallarès"},
			}, "es", "<link rel=\"alternate\" type=\"application/rss+xml\" title=\"El Faro de Tarragona - Portada\" href=\""+esFeed+"\">\n", "Edición")
			p.simple("/suscripciones/", "Suscripciones", paywall("Suscríbete a El Faro de Tarragona", "Acceso ilimitado a todas las noticias por 6,99 € al mes.", "Suscribirme", es+"/suscripciones/alta/"))
			p.h.rss("/rss/portada.xml", rss2(channel{title: "El Faro de Tarragona - Portada", link: es + "/", description: "Las últimas noticias de El Faro de Tarragona",
				lang: "es", self: esFeed, loc: zoneCET}, es, p.list[:20], rssOpts{creator: true, media: static + "/clip", categoryTag: true}))
			editionSitemap(p, zoneCET, "User-agent: *\nDisallow: /buscador/\nDisallow: /usuarios/\nDisallow: /suscripciones/alta/\nAllow: /rss/\n\nUser-agent: GPTBot\nDisallow: /\n")

			p = edition(stdConfig{host: "en." + apex, name: "El Faro de Tarragona in English", lang: "en-es",
				desc:     "News in English from Tarragona and the Costa Daurada for residents and visitors.",
				sections: []string{"news:News", "costa-daurada:Costa Daurada", "property:Property", "whats-on:What's on", "sport:Sport"},
				newest:   3*time.Hour + 20*time.Minute, every: 4 * time.Hour, by: "By", moreText: "More", dateFmt: "2 January 2006, 15:04",
				topLinks: []link{{en + "/newsletter/", "Newsletter"}, {en + "/subscribe/", "Subscribe"}, {en + "/users/login/", "Sign in"}},
				footerCols: []footerCol{
					{"About", []link{{en + "/about-us/", "About us"}, {en + "/contact/", "Contact"}, {en + "/advertise/", "Advertise"}}},
					{"Services", []link{{en + "/newsletter/", "Newsletter"}, {en + "/subscribe/", "Subscribe"}}},
					{"Legal", []link{{en + "/legal-notice/", "Legal notice"}, {en + "/privacy-policy/", "Privacy policy"}, {en + "/cookie-policy/", "Cookie policy"}}},
				},
				copyright: "© " + strconv.Itoa(b.now.Year()) + " Editorial Costa Daurada, S.L. All rights reserved.",
				authors:   []string{"Staff Reporter", "Sarah Kennedy"},
			}, "en", "<link rel=\"alternate\" type=\"application/rss+xml\" title=\"El Faro de Tarragona in English - Latest news\" href=\""+enFeed+"\">\n", "Edition")
			p.simple("/newsletter/", "Newsletter", newsletterForm(en+"/newsletter/signup/", "Email address", "Sign up"))
			p.h.rss("/rss/latest.xml", rss2(channel{title: "El Faro de Tarragona in English - Latest news", link: en + "/", description: "The latest news in English from Tarragona and the Costa Daurada",
				lang: "en", self: enFeed, loc: zoneCET}, en, p.list[:14], rssOpts{creator: true, media: static + "/clip", categoryTag: true}))
			editionSitemap(p, zoneCET, "User-agent: *\nDisallow: /search/\nDisallow: /users/\nAllow: /rss/\n\nUser-agent: GPTBot\nDisallow: /\n")

			p = edition(stdConfig{host: "ca." + apex, name: "El Far de Tarragona", lang: "ca",
				desc:     "Notícies de Tarragona, Reus, la Costa Daurada i les Terres de l'Ebre.",
				sections: []string{"tarragona:Tarragona", "reus:Reus", "costa-daurada:Costa Daurada", "terres-de-l-ebre:Terres de l'Ebre", "economia:Economia", "esports:Esports", "opinio:Opinió"},
				newest:   1*time.Hour + 40*time.Minute, every: 95 * time.Minute, by: "Per", moreText: "Més", dateFmt: "02/01/2006 15:04",
				notFoundTitle: "Pàgina no trobada", notFoundText: "Ho sentim, la pàgina que cerqueu no existeix o s'ha mogut.",
				topLinks: []link{{ca + "/subscripcions/", "Subscriu-te"}, {ca + "/butlletins/", "Butlletins"}, {ca + "/usuaris/login/", "Inicia la sessió"}},
				footerCols: []footerCol{
					{"El Far", []link{{ca + "/qui-som/", "Qui som"}, {ca + "/contacte/", "Contacte"}, {ca + "/publicitat/", "Publicitat"}, {ca + "/treballa-amb-nosaltres/", "Treballa amb nosaltres"}}},
					{"Serveis", []link{{ca + "/subscripcions/", "Subscripcions"}, {ca + "/butlletins/", "Butlletins"}, {ca + "/hemeroteca/", "Hemeroteca"}, {ca + "/esqueles/", "Esqueles"}}},
					{"Legal", []link{{ca + "/avis-legal/", "Avís legal"}, {ca + "/politica-de-privadesa/", "Política de privadesa"}, {ca + "/politica-de-galetes/", "Política de galetes"}}},
				},
				copyright: "© " + strconv.Itoa(b.now.Year()) + " Editorial Costa Daurada, S.L. Tots els drets reservats.",
				authors:   []string{"Redacció", "Agències", "Marta Ferré", "Jordi Pallarès"},
			}, "ca", "<link rel=\"alternate\" type=\"application/atom+xml\" title=\"El Far de Tarragona - Portada\" href=\""+caFeed+"\">\n", "Edició")
			p.simple("/subscripcions/", "Subscripcions", paywall("Subscriu-te a El Far de Tarragona", "Accés il·limitat a totes les notícies per 6,99 € al mes.", "Subscriure'm", ca+"/subscripcions/alta/"))
			p.h.put("/atom/portada.xml", ctAtom, atom(channel{title: "El Far de Tarragona - Portada", link: ca + "/", description: "Les últimes notícies d'El Far de Tarragona",
				lang: "ca", self: caFeed, loc: zoneCET}, ca, p.list[:16], atomOpts{id: ca + "/"}))
			editionSitemap(p, zoneCET, "User-agent: *\nDisallow: /cercador/\nDisallow: /usuaris/\nDisallow: /subscripcions/alta/\nAllow: /atom/\n\nUser-agent: GPTBot\nDisallow: /\n")
		},
	}
}
