"""German words of the lists skill: the shopping list ("Einkaufsliste"), to do, notes and any list named.

German writes a list's name and "Liste" as one word ("einkaufsliste", "aufgabenliste"): `_ref` reads the
name out of the word (an "s" that joins the two is left out), and "die liste" alone is the default list.
The groups are named as in en_lists.py: `items...`, `list...`, `notes...`.
"""

from __future__ import annotations

import re
from typing import Final

from appliance.language import SkillPhrases

_L: Final = "a-zäöüß"


def _ref(n: int, own: bool = False) -> str:
    """Which list: 'meine einkaufsliste', 'die liste' (the default list), 'meinen einkaufszettel', 'meine notizen';
    `own`: only 'meine' or 'unsere' before it."""
    whose = r"(?:meine|meiner|unsere|unserer) " if own else \
        r"(?:(?:meine|meiner|meinen|die|der|den|unsere|unserer|unseren|deine|deiner|diese|dieser) )?"
    return (rf"{whose}(?:(?P<list{n}>[{_L}]{{3,}}?)s?(?:liste|zettel)|liste|(?P<notes{n}>notizen))")


CONTRACTIONS: Final = [(r",(?=[^.?!]*\b(?:[a-zäöüß]*liste|[a-zäöüß]*zettel|notizen)\b)", " und ")]
"""In a request about a list, a comma parts its items as "und" does ("setz milch, eier und brot auf die liste")."""

_LEAD: Final = r"^(?:(?:auch|dann|jetzt|noch|schnell|mal) )*"
_ADD_VERB: Final = r"(?:setz|setze|schreib|schreibe|pack|packe|tu|tue|füg|füge|trag|trage|nimm|nehme)"
_ADD_END: Final = r"(?:setzen|schreiben|packen|tun|hinzufügen|eintragen|aufnehmen|draufschreiben|drauf setzen)"
_TAKE_VERB: Final = r"(?:streich|streiche|lösch|lösche|entfern|entferne|nimm|nehme|hak|hake)"
_EVERY: Final = r"(?:alles|alle sachen|alle einträge|den ganzen kram)"
_ON: Final = r"(?:auf|zu|zur|zum|in|an)"

PATTERNS: Final = {
    "note": re.compile(
        r"^(?:notiere|notier|notiz|schreib (?:mir )?eine notiz|mach (?:mir )?eine notiz)(?: dass| über| zu)?"
        r" (?P<items>.+)$"),
    "clear": re.compile(
        rf"{_LEAD}(?:lösch|lösche|leer|leere|räum|räume)(?: bitte)? {_ref(1)}(?: ab| aus| komplett)?$"
        rf"|^{_ref(2)} (?:leeren|löschen|abräumen)$"
        rf"|{_LEAD}{_TAKE_VERB} {_EVERY} (?:von|aus) {_ref(3)}(?: runter| raus)?$"),
    "add": re.compile(
        rf"{_LEAD}{_ADD_VERB}(?: bitte| noch| auch)* (?P<items>.+?) {_ON} {_ref(1)}"
        r"(?: hinzu| dazu| drauf| ein| auf| auch| noch)?$"
        rf"|^(?:noch |auch )?(?P<items2>.+?) {_ON} {_ref(2)} {_ADD_END}$"
        rf"|^{_ref(3)} (?P<items3>.+?) (?:hinzufügen|dazu|drauf)$"),
    # an add whose verb went unheard: asked last
    "add_bare": re.compile(rf"^(?P<items>.+?) (?:auf|zur|in) {_ref(1, own=True)}$"),
    # what to add said first, then pointed back to: "wir brauchen Batterien, schreib sie auf die Liste"
    "add_after": re.compile(
        rf"^(?P<items>.+?) (?:und |also )?{_ADD_VERB}(?: bitte| mal)? (?:es|sie|das|ihn|die|den) {_ON} {_ref(1)}"
        r"(?: hinzu| dazu| drauf)?$"),
    # what was done said first: "ich habe die Eier gekauft, streich sie von der Liste"
    "remove_after": re.compile(
        rf"^(?P<items>.+?) (?:und |also )?{_TAKE_VERB}(?: bitte)? (?:es|sie|das|ihn|die|den) (?:von|aus) {_ref(1)}"
        r"(?: runter| raus| weg| ab)?$"),
    # asked of an item without the list named, only when it is on it: "brauchen wir noch Eier?"
    "has_kept": re.compile(r"^(?:brauche ich|brauchen wir) (?:noch )?(?:mehr )?(?P<items>.+?)(?: noch)?$"),
    # an item taken off without the list named, only when it is on it: "wir brauchen keine Milch mehr"
    "remove_kept": re.compile(
        r"^(?:wir brauchen|ich brauche) (?:keine|keinen|kein) (?P<items>.+?)(?: mehr)?$"
        r"|^(?:streich|streiche|hak|hake) (?:die |den |das )?(?P<items2>.+?)(?: ab| durch)?$"
        r"|^(?:lösch|lösche|entfern|entferne) die (?P<notes3>notiz) (?:über|zu|zum|zur|mit) (?P<items3>.+)$"),
    "remove": re.compile(
        rf"{_LEAD}{_TAKE_VERB}(?: bitte)? (?P<items>.+?) (?:von|aus|auf) {_ref(1)}(?: runter| raus| weg| ab)?$"
        rf"|^(?P<items2>.+?) (?:von|aus) {_ref(2)} (?:streichen|löschen|entfernen|nehmen|runternehmen)$"),
    "count": re.compile(
        r"^wie viele? (?:sachen |dinge |einträge |artikel |punkte )?(?:stehen|sind|habe ich|haben wir|steht)"
        rf"(?: denn| noch| gerade)? (?:auf|in) {_ref(1)}(?: drauf)?$"
        rf"|^ist {_ref(2)} leer$"),
    "read": re.compile(
        r"^(?:was steht|was ist|was haben wir|was habe ich|was hab ich|was steht denn|was steht alles|was genau steht)"
        rf" (?:alles )?(?:auf|in) {_ref(1)}(?: drauf| gerade| jetzt| noch)?$"
        rf"|^(?:lies|lese|sag|zeig|nenn|gib)(?: mir| uns)?(?: mal| bitte)? {_ref(2)}(?: vor| auf| durch)?$"
        r"|^was (?:muss|müssen|soll|sollen) (?:ich|wir) (?:noch )?(?:einkaufen|kaufen|besorgen|holen|mitbringen)$"
        rf"|^(?:steht|ist) (?:schon )?(?:etwas|was|irgendwas) (?:auf|in) {_ref(3)}$"
        rf"|^{_ref(4)} (?:vorlesen|zeigen|durchgehen|aufsagen)$"),
    "has": re.compile(
        rf"^(?:steht|stehen|ist|sind) (?P<items>.+?) (?:schon |bereits |noch )?(?:auf|in) {_ref(1)}(?: drauf)?$"
        rf"|^(?:habe|hab|haben) (?:ich|wir) (?:schon |bereits )?(?P<items2>.+?) (?:auf|in) {_ref(2)}"
        r"(?: geschrieben| gesetzt| drauf)?$"),
    # After a list was spoken of: "und noch eier", "füg noch butter hinzu".
    "add_more": re.compile(rf"^(?:füg|füge|setz|setze|schreib|schreibe) (?:(?:noch|auch|mal) )*(?P<items>.+?)"
                           r"(?: hinzu| dazu| drauf| auf| auch)?$"),
    "remove_more": re.compile(rf"^{_TAKE_VERB} (?:auch )?(?P<items>.+?)(?: raus| runter| weg| auch)?$"),
    "note_alone": re.compile(r"^(?:mach|schreib) (?:mir )?eine notiz$"),
    "pronoun": re.compile(r"^(?:es|das|die|den|sie|etwas|was|dies)$"),
    # The items said, one by one
    "split": re.compile(r" (?:und auch|und dann|und|sowie|plus|dann) "),
    "item_lead": re.compile(r"^(?:(?:und|ein|eine|einen|kein|keine|keinen|keiner|etwas|die|der|das|den|noch|neue|"
                            r"neuen|neues|auch|mal|"
                            r"ein paar|paar|frische|frischen) )+"
                            r"|^(?:wir|ich) (?:brauchen|brauche|haben keine|habe keine|haben kein|habe kein) "
                            r"(?:(?:noch|mehr|neue|neuen|neues) )?"),
    "item_tail": re.compile(r" (?:auch|noch|bitte|dazu|mit)$"),
    "everything": re.compile(rf"^(?:{_EVERY}|irgendwas|etwas|sachen|dinge)$"),
    # A list's name as said -> the list it is ("name:" + that list's name)
    "name_lead": re.compile(r"^(?:(?:meine|meiner|die|der|unsere|unserer|deine|eine) )+"),
    "name:einkauf": re.compile(r"^(?:einkauf|einkaufs|einkäufe|lebensmittel|supermarkt|shopping|einkaufen)$"),
    "name:aufgaben": re.compile(r"^(?:aufgabe|aufgaben|todo|to do|erledigung|erledigungen|haushalts)$"),
    "name:notes": re.compile(r"^(?:notiz|notizen)$"),
}

REPLIES: Final = {
    # {title} is said after a preposition that takes the dative ("auf deiner Einkaufsliste"), so every reply
    # is written around it; the items are nouns, said with a capital ({Item}, {Items}).
    "default_list": "einkauf",
    "notes_list": "notes",
    "title": "deiner Liste {name}",
    "title@einkauf": "deiner Einkaufsliste",
    "title@aufgaben": "deiner Aufgabenliste",
    "title@notes": "deinen Notizen",
    "piece": "{Item}",
    "piece@notes": "{Item}.",
    "join@notes": " ",
    # changes
    "added_one": "Ich habe {Item} zu {title} hinzugefügt.",
    "added_many": "Ich habe {Items} zu {title} hinzugefügt.",
    "added_one@notes": "Notiert: {item}.",
    "added_many@notes": "Notiert: {items}.",
    "already_one": "{Item} steht schon auf {title}.",
    "already_many": "{Items} stehen schon auf {title}.",
    "already_one@notes": "Diese Notiz hast du schon.",
    "already_many@notes": "Diese Notizen hast du schon.",
    "removed_one": "Ich habe {Item} von {title} gestrichen.",
    "removed_many": "Ich habe {Items} von {title} gestrichen.",
    "removed_one@notes": "Ich habe die Notiz {item} gelöscht.",
    "removed_many@notes": "Ich habe die Notizen {items} gelöscht.",
    "missing_one": "{Item} finde ich nicht auf {title}.",
    "missing_many": "{Items} stehen nicht auf {title}.",
    "missing_one@notes": "Du hast keine Notiz {item}.",
    "missing_many@notes": "Du hast keine Notizen {items}.",
    "cleared": "Ich habe alles von {title} gestrichen.",
    "cleared@notes": "Ich habe deine Notizen gelöscht.",
    "cleared_empty": "Auf {title} stand schon nichts.",
    "cleared_empty@notes": "Du hattest keine Notizen.",
    # questions
    "empty": "Auf {title} steht nichts.",
    "empty@notes": "Du hast keine Notizen.",
    "read_one": "Auf {title} steht eine Sache: {items}.",
    "read_one@notes": "Du hast eine Notiz. {items}",
    "read_many": "Auf {title} stehen {count} Sachen: {items}.",
    "read_many@notes": "Du hast {count} Notizen. {items}",
    "read_long": "Auf {title} stehen {count} Sachen. Die ersten {shown} sind {items}.",
    "read_long@notes": "Du hast {count} Notizen. Die ersten {shown} sind diese. {items}",
    "count_one": "Auf {title} steht eine Sache.",
    "count_one@notes": "Du hast eine Notiz.",
    "count_many": "Auf {title} stehen {count} Sachen.",
    "count_many@notes": "Du hast {count} Notizen.",
    "has_one": "Ja, {Item} steht auf {title}.",
    "has_many": "Ja, {Items} stehen auf {title}.",
    "hasnt_one": "Nein, {Item} steht nicht auf {title}.",
    "hasnt_many": "Nein, {Items} stehen nicht auf {title}.",
    "on_one": "Auf {title} steht {Item}.",
    "on_many": "{Items} stehen auf {title}.",
    "unclear_add": "Sag, was drauf soll, zum Beispiel: setz Milch auf die Einkaufsliste.",
    "unclear_add@notes": "Sag die Notiz gleich mit, zum Beispiel: notiere, dass der Klempner anrufen soll.",
    "unclear_remove": "Sag, was runter soll, zum Beispiel: streich Milch von der Einkaufsliste.",
    "unclear_has": "Sag, wonach ich schauen soll, zum Beispiel: steht Milch auf der Einkaufsliste?",
    # what could not be done: {action} is one of the do_ entries
    "do_add": "{Items} eintragen",
    "do_add@notes": "diese Notiz machen",
    "do_remove": "{Items} von {title} streichen",
    "do_read": "aus {title} vorlesen",
    "do_count": "zählen, was auf {title} steht",
    "do_has": "auf {title} nachsehen",
    "do_clear": "alles von {title} streichen",
    "down": "Ich erreiche Home Assistant nicht, also konnte ich nicht {action}.",
    "refused": "Home Assistant hat meinen Zugangsschlüssel abgelehnt, also konnte ich nicht {action}.",
    "token": "Ich habe keinen lesbaren Zugangsschlüssel für Home Assistant, also konnte ich nicht {action}.",
    "lacks": "Home Assistant hat keine Einkaufsliste, also konnte ich nicht {action}. Füge in Home Assistant "
             "die Integration Einkaufsliste hinzu.",
    "store": "Beim Speichern ist etwas schiefgegangen, also konnte ich nicht {action}.",
    "full": "Auf {title} stehen schon {limit} Sachen, also konnte ich nicht {action}. Streich erst etwas.",
    "lists": "Du hast schon {limit} Listen, also konnte ich keine neue anlegen. Leere eine, die du nicht "
             "mehr brauchst.",
    "long": "Das ist zu lang für eine Liste. Sag es in weniger Worten.",
}

LISTS: Final = SkillPhrases(replies=REPLIES, patterns=PATTERNS)
"""Under the skill's name, "lists", in de.PHRASES."""
