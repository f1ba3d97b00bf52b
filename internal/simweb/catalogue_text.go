package simweb

import (
	"strconv"
	"strings"
	"time"
)

// article is one story of a catalogue site. Times are UTC; pages and feeds
// format them in the site's zone.
type article struct {
	id      int
	title   string
	summary string
	path    string // absolute path on the site, e.g. "/2025/06/14/slug/"
	section string // section slug, e.g. "politics"
	author  string
	time    time.Time
}

// articleSpec says how a site's stories look and how often they appear.
type articleSpec struct {
	lang     string        // text bank: en, de, ja, es, fr, it, nl, ca; en-intl, de-intl, fr-intl, es-tgn, en-es
	n        int           // how many
	newest   time.Duration // age of the newest story
	every    time.Duration // gap between stories
	sections []string      // section slugs, cycled
	authors  []string
	firstID  int                    // id of the oldest story (ids grow with time)
	path     func(a article) string // the story's path; a.title, a.section, a.id, a.time are set
}

// articles makes the stories of one site, newest first. seed varies the
// titles between sites; the result only depends on seed, spec and b.now.
func (b *builder) articles(seed string, spec articleSpec) []article {
	bank := textBanks[spec.lang]
	h := hashString(seed)
	out := make([]article, 0, spec.n)
	first := spec.firstID
	if first == 0 {
		first = 1000 + int(h%9000)
	}
	for i := 0; i < spec.n; i++ {
		v := mix64(h, uint64(i))
		subj := bank.subjects[v%uint64(len(bank.subjects))]
		pred := bank.predicates[(v>>20+uint64(i))%uint64(len(bank.predicates))]
		a := article{
			id:    first + spec.n - i,
			title: bank.join(subj, pred),
			time:  b.now.Add(-spec.newest - time.Duration(i)*spec.every).Truncate(time.Minute),
		}
		if len(spec.sections) > 0 {
			a.section = spec.sections[i%len(spec.sections)]
		}
		if len(spec.authors) > 0 {
			a.author = spec.authors[(v>>40)%uint64(len(spec.authors))]
		}
		a.summary = bank.lead(a.title, v)
		a.path = spec.path(a)
		out = append(out, a)
	}
	return out
}

// inSection keeps the stories of one section.
func inSection(list []article, section string) []article {
	var out []article
	for _, a := range list {
		if a.section == section {
			out = append(out, a)
		}
	}
	return out
}

type textBank struct {
	subjects, predicates, leads []string
	sep                         string // between subject and predicate
}

func (t textBank) join(subj, pred string) string { return subj + t.sep + pred }

func (t textBank) lead(title string, v uint64) string {
	return t.leads[(v>>8)%uint64(len(t.leads))]
}

var textBanks = map[string]textBank{
	"en": {
		sep: " ",
		subjects: []string{"Council", "Harbour board", "State treasurer", "Regional hospital", "Rail operator",
			"School district", "Water authority", "Police", "Dairy farmers", "City hall", "Airport operator",
			"Housing trust", "Fire service", "University", "Port authority", "Health minister", "Transport agency",
			"Local traders", "Energy regulator", "Library board"},
		predicates: []string{"approves new funding plan", "faces questions over delays", "opens public consultation on bypass",
			"announces major upgrade", "reports record visitor numbers", "warns of higher costs this winter",
			"delays key decision on rates", "unveils ten-year strategy", "cuts ribbon on new terminal",
			"calls for calm after storm damage", "backs plan for coastal path", "rejects rezoning proposal",
			"confirms job losses", "seeks feedback on parking changes", "launches review of services",
			"signs deal with contractor", "under pressure over budget blowout", "welcomes federal grant"},
		leads: []string{
			"The decision was made at a meeting on Tuesday night after months of debate.",
			"Residents have until the end of next month to have their say.",
			"Officials said the change would take effect from the start of the new financial year.",
			"The announcement follows a review commissioned last year.",
			"Critics say the plan does not go far enough, while supporters call it overdue.",
			"Further details are expected to be released later this week.",
		},
	},
	"de": {
		sep: " ",
		subjects: []string{"Stadtrat", "Landesregierung", "Die Polizei", "Kreisklinik", "Deutsche Bahn", "Gemeinderat",
			"Stadtwerke", "Handwerkskammer", "Die Feuerwehr", "Landkreis", "Bürgermeisterin", "Verkehrsverbund",
			"Winzergenossenschaft", "Universität", "Bundesregierung", "Ministerpräsident", "Amtsgericht", "Zoo"},
		predicates: []string{"beschließt neuen Haushalt", "warnt vor steigenden Kosten", "stellt Pläne für Neubau vor",
			"meldet Rekordzahlen", "verschiebt Entscheidung über Umgehungsstraße", "startet Bürgerbeteiligung",
			"sucht dringend Fachkräfte", "kündigt Streik an", "eröffnet neue Station", "zieht positive Bilanz",
			"erhöht die Gebühren", "reagiert auf Kritik", "plant Sanierung der Brücke", "setzt auf Wasserstoff",
			"bekommt Millionen vom Land", "stoppt umstrittenes Projekt"},
		leads: []string{
			"Die Entscheidung fiel am Dienstagabend nach einer langen Debatte.",
			"Bürgerinnen und Bürger können bis Ende des Monats Stellung nehmen.",
			"Die Änderungen sollen zum Jahreswechsel in Kraft treten.",
			"Kritiker sprechen von einem überfälligen Schritt.",
			"Weitere Einzelheiten sollen in den kommenden Tagen folgen.",
		},
	},
	"ja": {
		sep: "、",
		subjects: []string{"大阪府", "関西電力", "京都市", "政府", "日銀", "兵庫県警", "阪神電鉄", "文部科学省",
			"気象庁", "神戸市", "奈良県", "JR西日本", "和歌山県", "関西空港", "大阪市議会", "滋賀県"},
		predicates: []string{"新たな支援策を発表", "来年度予算案を公表", "記者会見で方針を説明", "運賃改定を申請",
			"過去最多を記録", "大雨への警戒を呼びかけ", "新路線の計画を明らかに", "観光客の受け入れを拡大",
			"防災訓練を実施", "新庁舎の建設を決定", "物価高への対策を検討", "人手不足の解消へ新制度"},
		leads: []string{
			"関係者によりますと、詳しい内容は来週にも公表される見通しです。",
			"担当者は「引き続き状況を注視したい」と話しています。",
			"専門家は今後の動向に注意が必要だと指摘しています。",
			"市民からはさまざまな意見が寄せられています。",
		},
	},
	"es": {
		sep: " ",
		subjects: []string{"El Ayuntamiento", "La Generalitat", "El Gobierno de Aragón", "La Guardia Civil", "El puerto de Tarragona",
			"Renfe", "La Universidad", "El hospital comarcal", "Los regantes del Ebro", "La Diputación", "El Real Zaragoza",
			"La Confederación Hidrográfica", "Los hosteleros", "El consejero de Sanidad"},
		predicates: []string{"aprueba el presupuesto del próximo año", "anuncia nuevas ayudas para el campo",
			"refuerza la vigilancia en las playas", "presenta el plan de movilidad", "alerta por la crecida del río",
			"inaugura la nueva estación", "denuncia el retraso de las obras", "amplía el horario de atención",
			"recibe fondos europeos", "firma un convenio con la patronal", "abre el plazo de inscripción",
			"cierra el ejercicio con superávit"},
		leads: []string{
			"La medida se aprobó este martes en el pleno tras un largo debate.",
			"Los vecinos podrán presentar alegaciones hasta final de mes.",
			"Fuentes oficiales indicaron que los detalles se conocerán en los próximos días.",
			"La oposición critica que la decisión llega tarde.",
		},
	},
	"fr": {
		sep: " ",
		subjects: []string{"Le ministère", "La préfecture", "Le Gouvernement", "Les communes rurales", "L'Agence nationale de la cohésion des territoires",
			"La ministre", "Le Conseil national", "Les départements", "L'État", "Les maisons France services"},
		predicates: []string{"lance un appel à projets", "publie son rapport annuel", "annonce un plan pour les petites villes",
			"renforce l'accès aux services publics", "présente la feuille de route", "soutient la revitalisation des centres-bourgs",
			"ouvre une consultation publique", "signe une convention avec les régions", "déploie de nouveaux moyens",
			"fait le point sur le programme Villages d'avenir"},
		leads: []string{
			"Cette mesure s'inscrit dans le cadre de l'agenda rural.",
			"Les candidatures sont ouvertes jusqu'à la fin du mois.",
			"Le dispositif sera évalué à l'issue de la première année.",
			"Retrouvez le détail des annonces dans le dossier de presse.",
		},
	},
	"it": {
		sep: " ",
		subjects: []string{"Il Comune", "La Regione", "La Provincia", "I vigili del fuoco", "L'Asl", "Il sindaco",
			"La Polizia locale", "Il consorzio del lago", "La Pro Loco", "Trenord", "La Camera di commercio", "Il Tribunale"},
		predicates: []string{"approva il bilancio", "presenta il nuovo piano traffico", "lancia l'allerta meteo",
			"inaugura la pista ciclabile", "chiude la strada provinciale per lavori", "stanzia fondi per le scuole",
			"avvia i controlli sulle spiagge", "rinvia la decisione sul parcheggio", "cerca volontari per l'estate",
			"annuncia il programma della festa"},
		leads: []string{
			"La decisione è arrivata martedì sera al termine del consiglio.",
			"I cittadini potranno presentare osservazioni entro fine mese.",
			"Ulteriori dettagli saranno comunicati nei prossimi giorni.",
			"Soddisfazione da parte delle associazioni di categoria.",
		},
	},
	"nl": {
		sep: " ",
		subjects: []string{"De gemeente", "Het waterschap", "De provincie", "Rijkswaterstaat", "De politie", "Het ziekenhuis",
			"Boeren", "De veiligheidsregio", "NS", "De gemeenteraad", "Het college", "Staatsbosbeheer"},
		predicates: []string{"presenteert nieuw plan", "waarschuwt voor wateroverlast", "sluit brug wegens onderhoud",
			"trekt extra geld uit voor dijken", "zoekt vrijwilligers", "stemt in met windpark", "start proef met deelauto's",
			"verhoogt de afvalstoffenheffing", "opent nieuw fietspad", "pakt overlast aan"},
		leads: []string{
			"Het besluit viel dinsdagavond na een lang debat.",
			"Inwoners kunnen tot het einde van de maand reageren.",
			"Meer details volgen later deze week.",
			"Omwonenden reageren verdeeld op de plannen.",
		},
	},
	// An international broadcaster's editions: the same news desk in
	// English, German and French.
	"en-intl": {
		sep: " ",
		subjects: []string{"EU Commission", "UN Security Council", "German government", "NATO", "European Central Bank",
			"French government", "WHO", "European Parliament", "IMF", "Spanish parliament", "Polish president",
			"Italian government", "Council of Europe", "Eurogroup"},
		predicates: []string{"presents plan to speed up energy transition", "warns of further escalation",
			"agrees aid package after marathon talks", "calls emergency meeting", "cuts interest rates",
			"tightens sanctions", "presents draft budget", "struggles for compromise on migration",
			"urges faster action on climate", "announces sweeping reforms", "reacts to election result",
			"discusses ceasefire proposal", "lowers growth forecast", "backs new supply chain law"},
		leads: []string{
			"The decision came after hours of talks in Brussels.",
			"Diplomats said further details would follow in the coming days.",
			"Critics said the move came too late.",
			"The announcement was welcomed by most member states.",
			"Markets reacted calmly to the news.",
		},
	},
	"de-intl": {
		sep: " ",
		subjects: []string{"EU-Kommission", "UN-Sicherheitsrat", "Bundesregierung", "Nato", "Europäische Zentralbank",
			"Französische Regierung", "WHO", "Europaparlament", "IWF", "Spanisches Parlament", "Polens Präsident",
			"Italienische Regierung", "Europarat", "Eurogruppe"},
		predicates: []string{"legt Plan für schnellere Energiewende vor", "warnt vor weiterer Eskalation",
			"einigt sich nach Marathonverhandlungen auf Hilfspaket", "beruft Krisentreffen ein", "senkt den Leitzins",
			"verschärft Sanktionen", "stellt Haushaltsentwurf vor", "ringt um Kompromiss in der Migrationsfrage",
			"fordert mehr Tempo beim Klimaschutz", "kündigt weitreichende Reformen an", "reagiert auf Wahlergebnis",
			"berät über Vorschlag für Waffenruhe", "senkt Wachstumsprognose", "stimmt für neues Lieferkettengesetz"},
		leads: []string{
			"Die Entscheidung fiel nach stundenlangen Beratungen in Brüssel.",
			"Weitere Einzelheiten sollen nach Angaben von Diplomaten in den kommenden Tagen folgen.",
			"Kritiker bemängeln, der Schritt komme zu spät.",
			"Die meisten Mitgliedstaaten begrüßten die Ankündigung.",
			"Die Märkte reagierten gelassen.",
		},
	},
	"fr-intl": {
		sep: " ",
		subjects: []string{"La Commission européenne", "Le Conseil de sécurité de l'ONU", "Le gouvernement allemand", "L'Otan",
			"La Banque centrale européenne", "Le gouvernement français", "L'OMS", "Le Parlement européen", "Le FMI",
			"Le Parlement espagnol", "Le président polonais", "Le gouvernement italien", "Le Conseil de l'Europe", "L'Eurogroupe"},
		predicates: []string{"présente un plan pour accélérer la transition énergétique", "met en garde contre une nouvelle escalade",
			"s'accorde sur un plan d'aide après un marathon de négociations", "convoque une réunion d'urgence", "baisse ses taux directeurs",
			"durcit les sanctions", "présente son projet de budget", "cherche un compromis sur la migration",
			"appelle à accélérer l'action climatique", "annonce de vastes réformes", "réagit aux résultats des élections",
			"examine une proposition de cessez-le-feu", "revoit à la baisse ses prévisions de croissance", "adopte une nouvelle loi sur le devoir de vigilance"},
		leads: []string{
			"La décision a été prise après des heures de négociations à Bruxelles.",
			"Selon des diplomates, d'autres précisions suivront dans les prochains jours.",
			"Les critiques estiment que la mesure arrive trop tard.",
			"L'annonce a été saluée par la plupart des États membres.",
			"Les marchés ont réagi avec calme.",
		},
	},
	// A Tarragona daily's editions in Spanish, Catalan and English.
	"es-tgn": {
		sep: " ",
		subjects: []string{"El Ayuntamiento de Tarragona", "La Generalitat", "El Port de Tarragona", "Renfe", "La Guardia Urbana",
			"La Diputación", "El hospital Joan XXIII", "La comunidad de regantes del Delta", "La Universitat Rovira i Virgili",
			"El Ayuntamiento de Reus", "El gremio de hostelería de Salou", "El Nàstic", "El consejero de Territorio"},
		predicates: []string{"aprueba el presupuesto del próximo año", "anuncia nuevas ayudas para el campo",
			"refuerza la vigilancia en las playas", "presenta el plan de movilidad", "alerta por la crecida del Ebro",
			"inaugura la nueva estación", "denuncia el retraso de las obras de la N-340", "amplía el horario de atención",
			"recibe fondos europeos", "firma un convenio con la patronal", "abre el plazo de inscripción",
			"cierra el ejercicio con superávit"},
		leads: []string{
			"La medida se aprobó este martes en el pleno tras un largo debate.",
			"Los vecinos podrán presentar alegaciones hasta final de mes.",
			"Fuentes oficiales indicaron que los detalles se conocerán en los próximos días.",
			"La oposición critica que la decisión llega tarde.",
		},
	},
	"ca": {
		sep: " ",
		subjects: []string{"L'Ajuntament de Tarragona", "La Generalitat", "El Port de Tarragona", "Renfe", "La Guàrdia Urbana",
			"La Diputació", "L'hospital Joan XXIII", "La comunitat de regants del Delta", "La Universitat Rovira i Virgili",
			"L'Ajuntament de Reus", "El gremi d'hostaleria de Salou", "El Nàstic", "El conseller de Territori"},
		predicates: []string{"aprova el pressupost de l'any vinent", "anuncia noves ajudes per al camp",
			"reforça la vigilància a les platges", "presenta el pla de mobilitat", "alerta per la crescuda de l'Ebre",
			"inaugura la nova estació", "denuncia el retard de les obres de la N-340", "amplia l'horari d'atenció",
			"rep fons europeus", "signa un conveni amb la patronal", "obre el termini d'inscripció",
			"tanca l'exercici amb superàvit"},
		leads: []string{
			"La mesura es va aprovar aquest dimarts al ple després d'un llarg debat.",
			"Els veïns podran presentar al·legacions fins a final de mes.",
			"Fonts oficials van indicar que els detalls es coneixeran els pròxims dies.",
			"L'oposició critica que la decisió arriba tard.",
		},
	},
	"en-es": {
		sep: " ",
		subjects: []string{"Tarragona council", "The Catalan government", "Tarragona port authority", "Renfe", "Reus airport",
			"Salou town hall", "Joan XXIII hospital", "Cambrils council", "The Delta rice growers' association",
			"Rovira i Virgili University", "Costa Daurada hoteliers' association", "Nàstic", "The regional transport chief"},
		predicates: []string{"approves next year's budget", "announces new aid for farmers", "steps up beach patrols",
			"unveils new mobility plan", "issues warning as the Ebro rises", "opens new station",
			"criticises delays to N-340 roadworks", "extends opening hours", "receives EU funding",
			"signs agreement with employers", "opens registration period", "ends the year with a surplus"},
		leads: []string{
			"The measure was approved at Tuesday's full council meeting after a long debate.",
			"Residents can submit objections until the end of the month.",
			"Officials said further details would be released in the coming days.",
			"The opposition says the decision comes too late.",
			"The change also affects foreign residents registered on the padrón.",
		},
	},
}

// slugify makes a URL slug of a Latin-script title, transliterating the
// accents of the languages in the text banks.
func slugify(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		rep := ""
		switch r {
		case 'ä':
			rep = "ae"
		case 'ö':
			rep = "oe"
		case 'ü':
			rep = "ue"
		case 'ß':
			rep = "ss"
		case 'á', 'à', 'â', 'ã':
			rep = "a"
		case 'é', 'è', 'ê', 'ë':
			rep = "e"
		case 'í', 'ì', 'î', 'ï':
			rep = "i"
		case 'ó', 'ò', 'ô', 'õ':
			rep = "o"
		case 'ú', 'ù', 'û':
			rep = "u"
		case 'ñ':
			rep = "n"
		case 'ç':
			rep = "c"
		}
		switch {
		case rep != "":
			b.WriteString(rep)
			dash = false
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// uuidFor is a stable UUID-shaped id, as BLOX and other CMSs put in URLs.
func uuidFor(seed string, id int) string {
	v1 := mix64(hashString(seed), uint64(id))
	v2 := mix64(v1, 7)
	hex := strconv.FormatUint(v1, 16) + strconv.FormatUint(v2, 16)
	for len(hex) < 32 {
		hex += "0"
	}
	return hex[0:8] + "-" + hex[8:12] + "-" + hex[12:16] + "-" + hex[16:20] + "-" + hex[20:32]
}

func itoa(i int) string { return strconv.Itoa(i) }

// datePath is "/2006/01/02" of t in loc.
func datePath(t time.Time, loc *time.Location) string { return t.In(loc).Format("/2006/01/02") }

// Zones of the catalogue's countries (fixed offsets: the content is dated
// relative to now, so daylight saving does not matter).
var (
	zoneUTC    = time.UTC
	zoneCET    = time.FixedZone("CET", 3600)
	zoneCEST   = time.FixedZone("CEST", 2*3600)
	zoneJST    = time.FixedZone("JST", 9*3600)
	zoneEST    = time.FixedZone("EST", -5*3600)
	zoneCST    = time.FixedZone("CST", -6*3600)
	zonePST    = time.FixedZone("PST", -8*3600)
	zoneAEST   = time.FixedZone("AEST", 10*3600)
	zoneIST    = time.FixedZone("IST", 5*3600+1800)
	zoneNZST   = time.FixedZone("NZST", 12*3600)
	zoneSGT    = time.FixedZone("SGT", 8*3600)
	zoneSAST   = time.FixedZone("SAST", 2*3600)
	zoneEAT    = time.FixedZone("EAT", 3*3600)
	zonePHT    = time.FixedZone("PHT", 8*3600)
	zoneWAT    = time.FixedZone("WAT", 3600)
	zoneIrish  = time.FixedZone("IST", 3600)
	zoneLondon = time.FixedZone("BST", 3600)
)
