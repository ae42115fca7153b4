"""English words of the facts skill: what the hub is told to remember, asked about, and told to forget.

The patterns work on normalised words (lower case, no punctuation, "what's" and "where's" opened), the
wake word and politeness already stripped. Which kept fact answers a question is found by the words they
share (thinking/facts.py), not by these patterns: they only say what kind of request it is, which words
say nothing of a topic (`stop`), and what makes a question one about the household:

- it asks about something of yours: "my" or "our" within the first words of the question ("where's my
  passport", "what is our wifi password", "how old is my nephew"; not "what do my texts say", which asks
  for what the hub cannot read), or what you did ("where did I put the spare key", "when did we last
  service the boiler");
- or it names one of the few things a home is told about (`home`: "the spare key", "the boiler", "the bins"),
  and asks nothing general of it (`general`: "who invented the boiler", "how does the boiler work").
A question about the household that nothing kept answers gets "You haven't told me."; any other question
that nothing kept answers is the model's ("where is Paris", "how does a boiler work").
"""

from __future__ import annotations

import re
from typing import Final

from appliance.language import SkillPhrases

_Q: Final = r"(?:where|when|what|who|whose|which|how (?:old|many|much|long ago|often|long))"
"""The start of a question a kept fact can answer."""
_NOT_A_FACT: Final = (r"(?!(?:to|when|where|what|who|whom|why|how|if|whether|me|us|it|this|that|anything|everything"
                      r"|something|nothing)(?: |$))")
"""What follows "remember" in a request that tells nothing ("remember to...", "remember when...")."""
_CUE_AFTER: Final = (r"(?:remember that|remember this|remember it|please remember|note that|make a note of that"
                     r"|dont forget that|do not forget that|keep that in mind|bear that in mind)")


def _period(n: int) -> str:
    """The time asked about, in a group `period<n>` (the pattern's `period:` entries say which it is)."""
    return (rf"(?: (?P<period{n}>today|so far today|yesterday|this week|last week|this month|recently|lately"
            r"|so far))?")


PATTERNS: Final = {
    # Telling: a clear cue, before or after what is to be kept
    "tell": re.compile(
        r"^(?:also |and |now )?(?:remember|note(?: down)?|memori[sz]e|keep in mind|bear in mind|dont forget"
        r"|do not forget"
        r"|make sure (?:you|to) remember|i (?:want|need) you to remember|you should remember|for the record"
        r"|for future reference|dont let me forget|do not let me forget)"
        rf"(?: (?:that|this))? {_NOT_A_FACT}(?P<fact>.+)$"
        rf"|^(?!{_Q}\b|(?:do|does|did|can|could|will|would|should|is|are|why|how)\b)(?P<fact2>.+?) {_CUE_AFTER}$"),
    "tell_alone": re.compile(r"^(?:please )?(?:remember|memori[sz]e|note)(?: (?:that|this|it))?$"),
    # Asking what was told: all of it, in a while, or about something
    "recall": re.compile(
        rf"^what (?:else )?(?:have|did) (?:i|we) (?:told|tell|said|say to) you(?: to remember)?{_period(1)}$"
        rf"|^what (?:things )?(?:have|did) (?:i|we) (?:asked|ask) you to remember{_period(2)}$"
        rf"|^what (?:else )?do you remember{_period(3)}$"
        rf"|^what (?:have you|did you) (?:remembered|remember|kept|noted){_period(4)}$"
        rf"|^(?:list|read|tell me|say) (?:everything|all|what) (?:that )?(?:you remember|i (?:have )?told you|you know)"
        rf"{_period(5)}$"),
    "about": re.compile(
        r"^(?:what )?(?:do you remember|did i tell you|have i told you|did we tell you|have we told you|did i say"
        r"|have i said|did i ask you to remember|you remember) (?:anything |something )?about (?P<topic>.+)$"),
    "period:today": re.compile(r"^(?:today|so far today)$"),
    "period:yesterday": re.compile(r"^yesterday$"),
    "period:week": re.compile(r"^(?:this week|recently|lately)$"),
    "period:last_week": re.compile(r"^last week$"),
    "period:month": re.compile(r"^this month$"),
    # Forgetting
    "forget_all": re.compile(
        r"^(?:please )?forget (?:about )?(?:everything|all)(?: of it)?"
        r"(?: (?:that )?(?:you remember|you know|you have been told|youve been told|i (?:have |ve )?told you"
        r"|we (?:have )?told you|i said|you were told))?$"
        r"|^(?:please )?(?:erase|delete|wipe|clear|remove) (?:everything|all)(?: (?:that )?(?:you remember"
        r"|you have been told|youve been told|i (?:have |ve )?told you|we (?:have )?told you))$"
        r"|^(?:clear|erase|wipe|delete|empty|reset) (?:your|the) memory$"),
    "forget": re.compile(
        r"^(?:please )?(?:you can |you may |just )?(?:forget|stop remembering) (?:about |what i (?:have )?(?:told you|said) about "
        r"|what we (?:have )?told you about |everything (?:i told you )?about |all about |the fact that )?"
        r"(?!(?:it|that|this|them|about it|about that|me|everything|all)$)(?P<topic>.+)$"),
    # Asking: a lead before the question proper is dropped ("do you know where my passport is")
    "lead": re.compile(
        r"^(?:(?:do|did) you (?:know|remember)|can you (?:tell me|remember)|tell me|any idea|have you got any idea"
        r"|i (?:forgot|forget|cant remember|dont remember|wonder)|remind me)(?: again)? (?=\w)"),
    "asks": re.compile(rf"^{_Q}\b|^(?:is|are|was|were|did|do|does|have|has|had) (?:my|our|the|i|we)\b"),
    "household": re.compile(
        rf"^{_Q}(?: (?!do\b|does\b)\w+){{0,2}}? (?:my|our|mine|ours)\b"  # not "what do my texts say"
        r"|^what is the (?:name|number|address|date|day|time|code|colour|size|make|model) of (?:my|our)\b"
        rf"|^{_Q}(?: \w+)? (?:did|have|had) (?:i|we)\b"
        r"|^(?:is|are|was|were|did|do|does|have|has|had) (?:my|our)\b|^(?:did|have|had) (?:i|we)\b"),
    "home": re.compile(
        r"\bthe (?:spare keys?|house keys?|car keys?|front door keys?|back door keys?|boiler|wifi password"
        r"|wi fi password|(?:alarm|door|gate|garage|safe|lock) (?:code|pin)|bins?|bin day|recycling|neighbours?"
        r"|neighbors?|landlord|plumber|babysitter)\b"),
    # General knowledge, when nothing of yours is asked about ("my", "our"): "where is a good place to hide a
    # key", "who invented the boiler"
    "general": re.compile(
        r"\b(?:a|an|any|invent\w*|discover\w*|history|made of|work|works)\b"
        r"|^(?:why|how (?:do|does|can|should|to|is|are|did|would))\b|^what (?:does|do) .+ (?:mean|do|stand for)$"),
    # What a fact is about, before its verb: "the spare key" in "the spare key is under the blue pot"
    "topic": re.compile(
        r"^(?P<topic>.+?) (?:is|are|was|were|has|have|had|will|would|goes|go|comes|come|lives|live|works|work"
        r"|gets|get|starts|start|opens|open|closes|close|costs|cost|means|belongs|belong|needs|need|takes|take"
        r"|stays|stay|sits|sit|keeps|keep|can|should|must|uses|use|leaves|leave|arrives|arrive|called|named"
        r"|hangs|hang|lies|lie)\b"),
    "no": re.compile(r"^(?:no|nope|dont|do not|keep them|keep it|keep everything|never mind|not now|cancel)\b"),
}

_STOP_TEXT: Final = (
    "a an the this that these those it its is are was were be been being am do does did done have has had "
    "having i me my mine we us our ours you your yours he him his she her hers they them their theirs "
    "what where when who whom whose which why how whats wheres whos "
    "and or but if so then than too also just now still again ever please of to in on at by for from with "
    "about into onto up down off out over under there here "
    "can could will would shall should may might must "
    "remember remembered note tell told telling said say know knew kept keep put left leave "
    "time day date year month long often much many old ago last back "
    "go goes going gone went "
    "thing things something anything everything stuff")

WORDS: Final = {
    # Words that say nothing of what a fact or a question is about
    "stop": frozenset(_STOP_TEXT.split()),
    # Words of a question or a fact that stand for another ("what's my neighbour called": its name)
    "alias:name": frozenset({"called", "named", "names"}),
}

REPLIES: Final = {
    "told": "I'll remember: {fact}.",
    "told_again": "I'll remember: {fact}. That replaces what you told me {when}.",
    "tell_alone": "Say what to remember, like: remember that the spare key is under the blue pot.",
    "full": "I already remember {limit} things. Ask me to forget some first.",
    "long": "That's too long for me to remember. Say it in fewer words.",
    "store": "Something went wrong keeping that, so I couldn't remember it.",
    "closed": "What I'm told isn't shared in this room.",
    # answers
    "answer": "{When} you told me {fact}.",
    "answer_now": "You told me {fact}.",
    "answer_two": "{When} you told me {fact}, and {when2} that {fact2}.",
    "not_told": "You haven't told me.",
    "nothing_about": "You haven't told me anything about {topic}.",
    "nothing": "You haven't told me anything to remember.",
    "nothing_then": "You haven't told me anything {period}.",
    "recall_one": "You told me one thing{period}. {items}",
    "recall_many": "You told me {count} things{period}. {items}",
    "recall_long": "You told me {count} things{period}. The newest {shown}: {items}",
    "item": "{When}, {fact}.",
    # when it was told: {when} inside a sentence, {When} starting one
    "when_today": "today",
    "when_just_now": "just now",
    "when_yesterday": "yesterday",
    "when_weekday": "on {weekday}",
    "when_date": "on {month} {day}",
    "when_date_year": "on {month} {day}, {year}",
    # the period asked about, as said after "You told me one thing"
    "period:today": " today",
    "period:yesterday": " yesterday",
    "period:week": " this week",
    "period:last_week": " last week",
    "period:month": " this month",
    "period:": "",
    # forgetting
    "forgot_one": "I've forgotten that {fact}.",
    "forgot_many": "I've forgotten {count} things about {topic}.",
    "ask_forget_all": "Should I forget all {count} things you've told me?",
    "ask_forget_one": "Should I forget the one thing you've told me?",
    "forgot_all": "Done. I've forgotten everything you told me.",
    "kept_all": "All right, I'll keep them.",
}

SWAPS: Final = {
    # said back to the listener: "my neighbour" -> "your neighbour"
    "i am": "you are", "im": "you are", "i": "you", "me": "you", "my": "your", "mine": "yours",
    "myself": "yourself", "we": "you", "us": "you", "our": "your", "ours": "yours", "ourselves": "yourselves",
    "we are": "you are",
}
"""Words turned to the listener when a fact is said back; the longest first."""
THEN_SWAPS: Final = {
    # a fact said back on another day: "today" was the day it was told
    "today": "that day", "tonight": "that night", "this morning": "that morning",
    "this afternoon": "that afternoon", "this evening": "that evening", "yesterday": "the day before",
    "tomorrow": "the day after", "now": "",
}

FACTS: Final = SkillPhrases(replies=REPLIES | {f"swap:{said}": back for said, back in SWAPS.items()}
                            | {f"then:{said}": back for said, back in THEN_SWAPS.items()},
                            patterns=PATTERNS, words=WORDS)
"""Under the skill's name, "facts", in en.PHRASES."""
