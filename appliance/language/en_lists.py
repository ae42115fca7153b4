"""English words of the lists skill: the shopping list, to do, notes and any list the owner names.

The patterns work on normalised words (lower case, no punctuation, "what's" opened); each holds the
items said in groups named `items...` and the list in `list...` (its name) or `notes...`.
A reply key with "@name" is that list's own way of saying it ("empty@notes"), used before the plain key.
"""

from __future__ import annotations

import re
from typing import Final

from appliance.language import SkillPhrases

_NOT_A_NAME: Final = r"(?!(?:a|an|some|any|these|those|which|what|new|another|longest|shortest|whole)\b)"
"""Words a list's name never starts with ("give me a list" names none)."""


def _ref(n: int, own: bool = False) -> str:
    """Which list: 'my shopping list', 'the list' (no name: the shopping list), 'my notes'; `own`:
    only 'my' or 'our' ("what is the longest list" is no list of the owner's)."""
    whose = r"(?:my|our) " if own else r"(?:(?:my|the|our|your|this|that) )?"
    return rf"{whose}(?:(?:{_NOT_A_NAME}(?P<list{n}>\w+(?: \w+){{0,2}}?) )?list|(?P<notes{n}>notes))"


CONTRACTIONS: Final = [(r",(?=[^.?!]*\b(?:list|notes)\b)", " and ")]
"""In a request about a list, a comma parts its items as "and" does ("add milk, eggs and bread to my list");
opened with the pack's other contractions, before the punctuation goes."""

_LEAD: Final = r"^(?:(?:also|then|now|just|quickly) )?"
_NOT_BOUGHT: Final = (r"(?:time|space|room|money|ideas|options|luck|patience|energy|steam|road|battery|charge|puff"
                      r"|breath|things to|help|sleep)\b")
"""What people run out of that no shop sells: "we've run out of time" is no item."""
_ADD_VERB: Final = (r"(?:add|at|put|stick|pop|throw|chuck|bung|whack|slap|write|jot|place|include|save|type)"
                    r"(?: down)?")
""""at": how a recogniser often writes "add"."""
_TAKE_VERB: Final = (r"(?:remove|delete|erase|drop|take|cross|scratch|strike|tick|knock|rub|mark)"
                     r"(?: off| out)?")
_EVERY: Final = r"(?:everything|all|all items|all the items|all the things|every item|all of it|the lot)"

PATTERNS: Final = {
    "note": re.compile(
        rf"{_LEAD}(?:make|take|write|leave|add|create|jot|put|save)(?: me| down)? (?:a |another |one )?"
        r"note(?: down)?(?: for me)?(?: to self)?(?: that| to| saying| of| about| reading)? (?P<items>.+)$"
        r"|^(?!note that )note(?: to self)?(?: down)?(?: that)? (?P<items2>.+)$"  # "note that ...": a fact to keep
        r"|^(?:jot|write) down(?: that)? (?!.* for the (?:shops|shopping|supermarket)$)(?P<items3>.+)$"),
    "clear": re.compile(
        rf"{_LEAD}(?:clear|empty|wipe|erase|delete|reset|clean|scrap|bin|ditch)(?: out| off)?(?: all(?: of)?)? {_ref(1)}"
        r"(?: out| completely)?$"
        rf"|{_LEAD}(?:{_TAKE_VERB}|clear|wipe|get rid of) {_EVERY} (?:off of|off|from|on|in|out of) {_ref(2)}$"),
    "add": re.compile(
        rf"{_LEAD}{_ADD_VERB} (?P<items>.+?) (?:to|on|onto|on to|in|into) {_ref(1)}"
        r"(?: too| as well| also| for me| for later)?$"
        rf"|{_LEAD}(?:add|put|write) (?:to|on|onto) {_ref(2)} (?P<items2>.+)$"
        rf"|^{_ref(3)} add (?P<items3>.+)$"
        # "jot down sugar for the shops": the shopping list
        rf"|{_LEAD}{_ADD_VERB} (?P<items4>.+?) for the (?:shops|shopping|supermarket)$"),
    # an add whose verb went unheard ("add" is often heard as "and", dropped as politeness): asked last
    # or said as curtly as "mince on the list" ("anything on the list?" asks)
    "add_bare": re.compile(rf"^(?P<items>.+?) (?:to|onto) {_ref(1, own=True)}$"
                           r"|^(?:(?:can|could|shall) (?:we|i|you) (?:get|have|put|stick|pop) )?"
                           r"(?!(?:anything|something|nothing|everything|what|which|how|is|are|any|can|could|shall)\b"
                           rf"|.*\b{_ADD_VERB}\b)"
                           r"(?P<items2>.+?) on (?:the |my |our )?(?:shopping )?list$"
                           # or said as what is missing: "we need more teabags", "we've run out of foil"
                           rf"|^(?:we|i) (?:need|want) (?:some )?more (?!{_NOT_BOUGHT})(?P<items3>.+)$"
                           rf"|^(?:we|i)(?: have|ve)? (?:run|ran) out of (?!{_NOT_BOUGHT})(?P<items4>.+)$"),
    # what to add said first, then pointed back to: "we need batteries, add them to the list"
    "add_after": re.compile(
        rf"^(?P<items>.+?) (?:and |so )?(?:can you |could you |please )?{_ADD_VERB} (?:it|them|that|those|these"
        rf"|this|one|some) (?:to|on|onto|on to|in|into) {_ref(1)}(?: too| as well| also| for me)?$"),
    "remove": re.compile(
        rf"{_LEAD}{_TAKE_VERB} (?P<items>.+?) (?:off of|off|out of|from|on|in) {_ref(1)}$"
        rf"|{_LEAD}get rid of (?P<items2>.+?) (?:off of|off|out of|from|on|in) {_ref(2)}$"),
    # what is done said first, then pointed back to: "I got the batteries, cross them off the list"
    "remove_after": re.compile(
        rf"^(?P<items>.+?) (?:and |so )?(?:can you |could you |you can |please )?{_TAKE_VERB} (?:it|them|that|those"
        rf"|these|this)(?: off| out)?(?: (?:off of|off|out of|from) (?:{_ref(1)}|(?:my|the|our) (?P<list2>jobs|chores"
        r"|to do|shopping)))?$"),
    # an item taken off without the list named, only when it is on it: "don't need milk any more",
    # "strike the eggs"; "a note about the boiler" is the note that says those words
    "remove_kept": re.compile(
        r"^(?:(?:i|we) )?(?:dont|do not|no longer) need (?:the |any )?(?P<items>.+?)(?: any ?more| now| after all)?$"
        r"|^(?:strike|cross off|tick off|scratch|strike off|cross out) (?:the )?(?P<items2>.+)$"
        r"|^(?:delete|remove|scrap|bin|ditch|get rid of) (?:the |my )?(?P<notes3>note) (?:about|on|saying|that says)"
        r" (?P<items3>.+)$"),
    # asked of an item without the list named, only when it is on it: "do I need bread?" ("do I need a coat?"
    # is not a list question)
    "has_kept": re.compile(r"^do (?:i|we) (?:still )?(?:need|have to get|have to buy) (?:any |some |more )?"
                           r"(?P<items>.+?)(?: still| again| today)?$"),
    "count": re.compile(
        r"^how (?:many|much) (?:things |items |stuff |entries |products |notes )?"
        r"(?:are|is|do i have|have i got|do we have|have we got|there are|is there|have i put|did i put)"
        rf"(?: there)? (?:on|in) {_ref(1)}$"
        r"|^how many (?P<notes2>notes) (?:do i have|have i got|are there|do we have|have we got)$"
        rf"|^how (?:long|big) is {_ref(3)}$"
        rf"|^is {_ref(4)} empty$"),
    "read": re.compile(
        r"^(?:what is|what are|what has|what have i|what do i have|what have i got|what do we have|what have we got"
        rf"|what is there|what things are|what items are) (?:on|in) {_ref(1)}"
        r"(?: now| so far| at the moment| today| for today)?$"
        r"|^(?:read|tell|show|give|list|say|go through|recite|check)(?: out)?(?: me| us)?(?: out)?"
        rf"(?: what is (?:on|in))? {_ref(2)}(?: out| to me| for me| again| back)?$"
        rf"|^what is {_ref(3, own=True)}$"
        rf"|^(?:is there |do i have |do we have |have i got |have we got )?anything (?:on|in) {_ref(4)}$"
        r"|^(?:what|which) (?P<notes5>notes) (?:do i have|have i got|are there|do we have)$"
        r"|^(?:do|have) (?:i|we) (?:have|got) any (?P<notes6>notes)$"
        r"|^what (?:do|should|must) (?:i|we) (?:need to |have to )?(?:buy|get|pick up|shop for)"
        r"(?: at the (?:shops|store|supermarket)| today| when i am out)?$"
        # the list named alone, or the shops said before "what do I need"
        r"|^(?:(?:my|the|our) )?(?:(?P<list7>shopping|grocery|to do|todo|jobs) )?list$"
        r"|^(?!.*\b(?:for|to make|to bake)\b).*\b(?:shops|shop|store|supermarket|shopping)\b.* what do (?:i|we) need$"
        r"|^(?:give|run) (?:me|us) (?:a rundown of|through) (?:(?:my|the|our) )?(?P<list8>shopping|jobs|to do)(?: list)?$"
        r"|^what (?P<list9>jobs|chores|tasks) (?:have i got|do i have|have we got|do we have|are there)"
        r"(?: to do| on| left)?(?: today)?$"),
    "has": re.compile(
        rf"^(?:is|are) (?:there )?(?P<items>.+?) (?:on|in) {_ref(1)}(?: already| yet| still)?$"
        r"|^(?:do|did|have) (?:i|we) (?:already )?(?:have|got|put|add|added|write|written) (?P<items2>.+?) "
        rf"(?:on|in|to|down on) {_ref(2)}(?: already| yet)?$"),
    # After a list was spoken of (the skill keeps which for a minute): "add eggs", "take milk off".
    # ("put the lights on" is never one: "put" is for a device there)
    "add_more": re.compile(rf"{_LEAD}add (?P<items>.+?)(?: too| as well| also| to it| to that one)?$"),
    "remove_more": re.compile(
        rf"{_LEAD}(?:remove|delete|cross off|tick off|scratch off|take off) (?P<items>.+?)"
        r"(?: too| as well| from it| from there)?$"
        r"|^(?:take|cross|tick|scratch|knock) (?P<items2>.+?) off(?: it| there)?(?: too| as well)?$"),
    # Asked without what: answered with how to say it
    "note_alone": re.compile(
        rf"{_LEAD}(?:make|take|write|leave|add|create|jot)(?: me| down)? (?:a |another )?note(?: for me| down)?$"),
    "pronoun": re.compile(r"^(?:it|that|this|them|those|these|something|one|some)$"),
    # The items said, one by one
    "split": re.compile(r" (?:and also|and then|and|plus|as well as|then) "),
    # "to": how a recogniser often writes "two" ("add to eggs")
    "item_lead": re.compile(r"^(?:(?:and|a few|few|a couple of|couple of|a bit of|a|an|some|the|more|any"
                            r"|another|also|to) )+"
                            r"|^(?:i|we)(?: will| ll|ll)? (?:need|want|have to|need to|must|should|gotta|are out of"
                            r"|have run out of|ran out of|have no|dont have any|dont have) (?:(?:a|an|some|more|any) )?"
                            r"|^(?:were|im) out of (?:(?:a|an|some|more|any) )?"),
    "item_tail": re.compile(r" (?:too|as well|also|please|for me|for (?:today|tonight|tomorrow|the weekend|monday"
                            r"|tuesday|wednesday|thursday|friday|saturday|sunday))$"),
    "everything": re.compile(rf"^(?:{_EVERY}|anything|something|stuff|things)$"),
    # A list's name as said -> the list it is ("name:" + that list's name)
    "name_lead": re.compile(r"^(?:(?:my|the|our|your|a|an|this|that) )+"),
    "name:shopping": re.compile(r"^(?:shopping|grocery|groceries|food|supermarket|shop|grocery shopping)$"),
    "name:to do": re.compile(r"^(?:to ?do|to dos|todos|task|tasks|jobs|chores|things to do)$"),
    "name:notes": re.compile(r"^(?:note|notes)$"),
}

REPLIES: Final = {
    # the list meant when none is named ("add milk to my list"), and the one Home Assistant keeps
    "default_list": "shopping",
    "notes_list": "notes",
    "title": "your {name} list",
    "title@notes": "your notes",
    "piece": "{item}",
    "piece@notes": "{Item}.",
    "join@notes": " ",
    # changes
    "added_one": "I've added {item} to {title}.",
    "added_many": "I've added {items} to {title}.",
    "added_one@notes": "Noted: {item}.",
    "added_many@notes": "Noted: {items}.",
    "already_one": "{Item} is already on {title}.",
    "already_many": "{Items} are already on {title}.",
    "already_one@notes": "You already have that note.",
    "already_many@notes": "You already have those notes.",
    "removed_one": "I've taken {item} off {title}.",
    "removed_many": "I've taken {items} off {title}.",
    "removed_one@notes": "I've deleted the note {item}.",
    "removed_many@notes": "I've deleted the notes {items}.",
    "missing_one": "I can't see {item} on {title}.",  # "bananas", "rice": no is/are to agree
    "missing_many": "{Items} aren't on {title}.",
    "missing_one@notes": "You have no note {item}.",
    "missing_many@notes": "You have no notes {items}.",
    "cleared": "I've cleared {title}.",
    "cleared@notes": "I've deleted your notes.",
    "cleared_empty": "{Title} was already empty.",
    "cleared_empty@notes": "You had no notes.",
    # questions
    "empty": "{Title} is empty.",
    "empty@notes": "You have no notes.",
    "read_one": "You have one thing on {title}: {items}.",
    "read_one@notes": "You have one note. {items}",
    "read_many": "You have {count} things on {title}: {items}.",
    "read_many@notes": "You have {count} notes. {items}",
    "read_long": "You have {count} things on {title}. The first {shown} are {items}.",
    "read_long@notes": "You have {count} notes. The first {shown} are these. {items}",
    "count_one": "You have one thing on {title}.",
    "count_one@notes": "You have one note.",
    "count_many": "You have {count} things on {title}.",
    "count_many@notes": "You have {count} notes.",
    "has_one": "Yes, {title} has {item}.",
    "has_many": "Yes, {items} are on {title}.",
    "hasnt_one": "No, {title} doesn't have {item}.",
    "hasnt_many": "No, {items} aren't on {title}.",
    "on_one": "{Title} has {item}.",
    "on_many": "{Items} are on {title}.",
    "unclear_add": "Say what to add, like: add milk to {title}.",
    "unclear_add@notes": "Say it with the note, like: make a note to call the plumber.",
    "unclear_remove": "Say what to take off, like: take milk off {title}.",
    "unclear_has": "Say what to look for, like: is milk on {title}?",
    # what could not be done: {action} is one of the do_ entries
    "do_add": "add {items}",
    "do_add@notes": "make that note",
    "do_remove": "take {items} off {title}",
    "do_read": "read {title}",
    "do_count": "count what is on {title}",
    "do_has": "look at {title}",
    "do_clear": "clear {title}",
    "down": "I can't reach Home Assistant, so I couldn't {action}.",
    "refused": "Home Assistant didn't accept my access token, so I couldn't {action}.",
    "token": "I have no access token for Home Assistant that I can read, so I couldn't {action}.",
    "lacks": "Home Assistant has no shopping list, so I couldn't {action}. Add the Shopping list integration "
             "in Home Assistant.",
    "store": "Something went wrong keeping {title}, so I couldn't {action}.",
    "full": "{Title} is full at {limit} things, so I couldn't {action}. Take something off first.",
    "lists": "You already have {limit} lists, so I couldn't start {title}. Clear one you no longer need.",
    "long": "That's too long to keep on a list. Say it in fewer words.",
}

LISTS: Final = SkillPhrases(replies=REPLIES, patterns=PATTERNS)
"""Under the skill's name, "lists", in en.PHRASES."""
