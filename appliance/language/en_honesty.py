"""English: what people ask the hub to do that nothing here can do, what a claimed action sounds like
in the model's mouth, and the truth said instead (thinking/honesty.py)."""

from __future__ import annotations

import re
from typing import Final

from appliance.language import Act, EmergencyWords, HonestyWords

# --------------------------------------------------------------------------------------
# Requests to act (matched on plain words: lower case, no apostrophes, no punctuation)

_POLITE: Final = (
    r"^(?:(?:hey|hi|ok|okay|so|um|uh|er|please|jarvis|now|just|and|oh|right|quickly|then|also|kindly)\s+"
    r"|(?:can|could|would|will|wont) you(?: please)?(?: just)?\s+"
    r"|(?:i want|i need|id like|i would like|i wanna|i wish) (?:you )?to\s+|i want\s+|i need\s+|id like\s+"
    r"|(?:help me|let me|lets|let us|go ahead and|you can|you could|try to|remember to)\s+)+")

# Where a request may start again inside one: "we are out of milk, so order some more".
_CLAUSES: Final = r"[,;.!?]+|\s(?:and|then|so|but|also|please)\s"

# A question about doing it, not a request: "how do I book a flight", "what is a podcast".
_ABOUT: Final = (r"^(?:how|what|whats|why|who|whos|when|where|which|is|are|was|does|did|should|would|"
                 r"tell me (?:about|how|what|why|who|when|where|if)|explain|describe|define|do you know|"
                 r"i wonder|is it|(?:will|wont) (?!you\b))\b")
"""A clause that asks about something ("will it rain tomorrow"; "will you set a timer" is a request)."""

_ROOMS: Final = (r"room|house|flat|home|bedroom|kitchen|lounge|hallway|hall|office|bathroom|nursery|study|"
                 r"place|conservatory|upstairs|downstairs|basement|attic")
_MEDIA: Final = (r"music|songs?|tunes?|radio|podcasts?|playlists?|album|tracks?|audiobooks?|films?|movies?|"
                 r"shows?|episodes?|series|programmes?|netflix|youtube|spotify|videos?|station|jazz|rock|pop|"
                 r"classical|news|bbc \w+")


def _act(pattern: str, said: str = "", home: bool = False) -> Act:
    return Act(re.compile(pattern), said, home)


ACTS: Final = (
    # Home Assistant could do these: said as "Home Assistant isn't connected" while it is not.
    _act(rf"(?:warm|heat|cool|air)(?: up| down)? (?:the |my |our )?(?:\w+ )?(?:{_ROOMS})\b"
         rf"|(?:warm|heat|cool) (?:it|things|the place) (?:up|down)\b|(?:run|fill|draw) (?:me )?(?:a |the )?bath\b"
         r"|(?:put|start|run) (?:on )?(?:a |the )?(?:wash|washing|laundry|load)\b"
         r"|make (?:me |us )?(?:a |some |the )?(?:(?:cup|pot|mug) of )?(?:coffee|tea|cuppa|toast)\b|preheat\b|feed (?:the )?(?:cat|dog|fish|pets?)\b"
         r"|water (?:the )?(?:plants|garden|lawn)\b", home=True),
    _act(r"(?:(?:call|get|order|book|find)(?: me| us)? )?(?:a |an )?(?:taxi|cab|uber|lyft)\b",
         "I can't call a taxi."),
    _act(r"(?:e ?mail|send (?:an? )?e ?mail|forward)\b|reply to\b", "I can't send messages or emails."),
    _act(r"(?:read|check|open|show|play)(?: me)?(?: out)? (?:my |the |any |new |all |unread |latest |last )*"
         r"(?:\w+ )?(?:messages?|texts?|e ?mails?|mail|inbox|notifications?|calendar|agenda|diary|schedule|"
         r"appointments?|meetings?|voicemails?)\b"
         r"|(?:do i have|have i got|did i get|did i miss|are there|is there) (?:any |a )?(?:new |unread |missed )?"
         r"(?:messages?|texts?|e ?mails?|mail|notifications?|meetings?|appointments?|voicemails?|calls?)\b"
         r"|(?:whats|what is|what do i have|what have i got) (?:on (?:my |the )?|in my |my )"
         r"(?:calendar|agenda|schedule|diary)\b"
         r"|(?:whos|who has|who is) (?:been )?(?:calling|messaging|texting)\b"
         r"|who (?:called|rang|texted|messaged|emailed) (?:me|us|earlier|today|while)\b",
         "I can't see your messages, emails or calendar."),
    _act(r"(?:text|message|msg|whatsapp|sms)\b|send (?:\w+ )?(?:a |an )?(?:\w+ )?(?:text|message|msg|whatsapp|sms)\b"
         r"|tell (?!me\b|us\b)\w+(?: \w+)? (?:that|i|im|ill|ive|id|were|we|well|to|shes|hes|its)\b|let (?!me\b|us\b)\w+(?: \w+)? know\b",
         "I can't send messages or emails."),
    _act(r"(?:call|phone|ring|dial|facetime|skype|video call)\b(?! me\b| it\b| this\b| that\b)"
         r"|make (?:a |an )?(?:phone |video )?call\b|(?:get|put) (?:me )?(?:\w+ )?on the phone\b",
         "I can't place calls."),
    _act(r"(?:order|reorder|re order|buy|purchase|restock|shop for)\b"
         r"(?! (?:of|these|those|them|the following|by|from|alphabetically|numbers|words)\b)"
         r"|(?:add|put) .*\b(?:to|in|into) (?:my |the )?(?:basket|cart|trolley|amazon|order)\b",
         "I can't order or buy things."),
    _act(r"(?:book|reserve)\b(?! (?:club|recommendations?|reviews?|about|by|series|shop|store)\b)"
         r"|(?:make|get) (?:me |us )?(?:a |an )?(?:\w+ )?(?:reservation|booking|appointment|table)\b"
         r"|schedule (?:a |an |my )?(?:appointment|meeting|call|viewing|service|delivery|haircut)\b",
         "I can't make bookings or reservations."),
    _act(rf"(?:play|stream|shuffle|queue|resume|unpause)\b(?! (?:a |the |some )?(?:game|games|quiz|trivia|i spy|"
         rf"twenty questions|20 questions|word|riddle|rock paper)\b)"
         rf"|(?:put on|watch|listen to|hear|turn on|turn up|turn off) (?:some |a |the |my |that |this |me )?"
         rf"(?:\w+ )?(?:{_MEDIA})\b"
         rf"|put (?:some |a |the |my )?(?:\w+ )?(?:{_MEDIA}) on\b"
         rf"|(?:skip|next|previous|pause|repeat)(?: to)?(?: this| that| the)?(?: next| last| previous)? "
         rf"(?:song|track|tune|episode|music|one)\b",
         "I can't play music, radio, podcasts or films."),
    _act(r"record\b(?! (?:temperature|high|low|holder|breaking|for|of)\b)|take (?:a |an |me a )?(?:photo|picture|pic|selfie|video|screenshot|snapshot)\b"
         r"|start recording\b|show me (?:the )?(?:camera|photos?|pictures?)\b",
         "I can't record or take photos."),
    _act(r"(?:navigate|directions)\b|(?:give|get|show) (?:me |us )?(?:the )?directions\b"
         r"|(?:take|drive|guide|get) (?:me |us )?(?:to|home)\b|(?:find|show) (?:me |us )?(?:the |a )?(?:nearest|closest)\b"
         r"|(?:plan|find) (?:me |us )?(?:a |the )?route\b",
         "I have no maps, so I can't give directions or find places."),
    _act(r"pay\b(?! attention)|(?:transfer|send) (?:\w+ )?(?:money|cash|pounds|dollars|euros|quid|bucks)\b"
         r"|top up (?:my |the |our )?(?:phone|card|account|oyster card|balance|credit|meter)\b|split the bill\b",
         "I can't make payments."),
    _act(r"(?:post\b(?! office)|tweet|upload|publish)\b|share (?:this|that|it|my|a photo|a picture|the photo)\b"
         r"|update my status\b",
         "I can't post anything online."),
    _act(r"(?:translate|interpret) (?:this call|the call|my call|this conversation|the conversation|what|everything|"
         r"for (?:me|us)|as)\b|(?:live|real time) (?:translation|interpreting)\b",
         "I can't translate a live conversation."),
    # The local skills' kind of request that none of them took: nothing specific is claimed about it.
    _act(r"(?:set|create|add|make|schedule|cancel|delete|change|snooze|turn off) (?:an? |my |the |me an? )?(?:\w+ )?"
         r"(?:alarms?|reminders?|wake up call)\b|wake me\b|remind\b(?! me (?:how|what|why|who|which|of)\b)"
         r"|(?:add|put|write|stick|pop) .*\b(?:on|to|in|onto) (?:the |my |our )?(?:\w+ )?(?:list|notes?)\b"
         r"|(?:take|make) (?:a )?note\b|note (?:that|down)\b"
         r"|(?:whats|what is|read(?: me)?|tell me what is) on (?:the |my |our )?(?:\w+ )?list\b"
         r"|(?:remove|delete|take|cross) .*\b(?:off|from) (?:the |my |our )?(?:\w+ )?list\b"
         r"|(?:clear|empty|read|show) (?:me )?(?:the |my |our )?(?:\w+ )?list\b"
         r"|(?:what|which|any) (?:alarms|reminders|notes)\b|(?:do i have|have i got|are there) any (?:alarms|reminders|notes)\b"
         r"|(?:dont|do not) let me forget\b"),
    _act(r"(?:search|look|google|find|check)\b.*\b(?:online|on the internet|on the web|on google)\b|google\b",
         "I have no internet connection, so I can't search online."),
)

# --------------------------------------------------------------------------------------
# The model's claims (matched on the sentence in lower case, apostrophes straightened)

# What the model might claim to have done, as (base, -ing, past participle).
_VERBS: Final = [
    ("order", "ordering", "ordered"), ("reorder", "reordering", "reordered"), ("buy", "buying", "bought"),
    ("purchase", "purchasing", "purchased"), ("book", "booking", "booked"), ("reserve", "reserving", "reserved"),
    ("call", "calling", "called"), ("phone", "phoning", "phoned"), ("ring", "ringing", "rung"),
    ("dial", "dialling", "dialled"), ("dial", "dialing", "dialed"), ("text", "texting", "texted"),
    ("message", "messaging", "messaged"), ("send", "sending", "sent"), ("email", "emailing", "emailed"),
    ("forward", "forwarding", "forwarded"), ("play", "playing", "played"), ("stream", "streaming", "streamed"),
    ("shuffle", "shuffling", "shuffled"), ("queue", "queueing", "queued"), ("record", "recording", "recorded"),
    ("navigate", "navigating", "navigated"), ("pay", "paying", "paid"), ("transfer", "transferring", "transferred"),
    ("post", "posting", "posted"), ("tweet", "tweeting", "tweeted"), ("upload", "uploading", "uploaded"),
    ("turn", "turning", "turned"), ("switch", "switching", "switched"), ("set", "setting", "set"),
    ("dim", "dimming", "dimmed"), ("brighten", "brightening", "brightened"), ("lock", "locking", "locked"),
    ("unlock", "unlocking", "unlocked"), ("open", "opening", "opened"), ("close", "closing", "closed"),
    ("shut", "shutting", "shut"), ("pause", "pausing", "paused"), ("resume", "resuming", "resumed"),
    ("skip", "skipping", "skipped"), ("remove", "removing", "removed"), ("delete", "deleting", "deleted"),
    ("cancel", "cancelling", "cancelled"), ("cancel", "canceling", "canceled"), ("remind", "reminding", "reminded"),
    ("schedule", "scheduling", "scheduled"), ("warm", "warming", "warmed"), ("heat", "heating", "heated"),
    ("cool", "cooling", "cooled"), ("adjust", "adjusting", "adjusted"), ("raise", "raising", "raised"),
    ("lower", "lowering", "lowered"), ("increase", "increasing", "increased"), ("decrease", "decreasing", "decreased"),
    ("place", "placing", "placed"), ("arrange", "arranging", "arranged"), ("contact", "contacting", "contacted"),
    ("notify", "notifying", "notified"), ("alert", "alerting", "alerted"), ("save", "saving", "saved"),
    ("note", "noting", "noted"), ("activate", "activating", "activated"), ("enable", "enabling", "enabled"),
    ("disable", "disabling", "disabled"), ("feed", "feeding", "fed"), ("preheat", "preheating", "preheated"),
    ("boil", "boiling", "boiled"), ("brew", "brewing", "brewed"), ("vacuum", "vacuuming", "vacuumed"),
    ("connect", "connecting", "connected"), ("search", "searching", "searched"), ("fetch", "fetching", "fetched"),
    ("wake", "waking", "woken"), ("snooze", "snoozing", "snoozed"),
]
_WORDS: Final = sorted({w for forms in _VERBS for w in forms}, key=len, reverse=True)
_DOING: Final = "|".join(_WORDS)
# At the start of a sentence only what is under way or done: "Calling mum", not "Call the shop" (advice).
_DONE: Final = "|".join(sorted({w for base, *forms in _VERBS for w in forms if w != base}
                               | {"adding", "added", "starting", "started", "checking", "checked"}, key=len, reverse=True))
# Verbs whose object decides: "let me put it simply" and "let me check" are not the same.
_DOING_WITH: Final = (
    r"start(?:ing|ed)? (?!(?:with|by|off)\b)|add(?:ing|ed)? (?!(?:that|this)\b(?! to))"
    r"|put(?:ting)? (?!(?:it|this|that) (?:simply|another|this|in|plainly|briefly|differently)\b)"
    r"|(?:check|look)(?:ing|ed)? (?:it |that |this )?(?:up|into|for|on)\b|check(?:ing|ed)?\b(?! out)"
    r"|(?:find|found|finding) (?:you|that|it|some|a|an|the)\b|get(?:ting)? (?:you|that|it|those|them|some)\b"
    r"|make (?:a |an |the |your )?(?:call|reservation|booking|appointment|payment|order|note|list|coffee|tea)\b"
    r"|made (?:a |an |the |your )?(?:call|reservation|booking|appointment|payment|order|note|list)\b"
    r"|read(?:ing)? (?:your|out your|them|those|it out|out)\b|tell(?:ing)? (?!you\b|yourself\b)\w+ (?:that|you)\b"
    r"|let(?:ting)? (?!you\b|me\b)\w+ know\b|take (?:a |the )?(?:photo|picture|selfie|video|note)\b"
    r"|took (?:a |the )?(?:photo|picture|selfie|video|note)\b|write (?:that|it|this) down\b|wrote (?:that|it) down\b")
_ME: Final = (r"(?:\bi'll|\bi will|\bi'm going to|\bi am going to|\bim going to|\bi'm gonna|\bi've|\bi have|\bi just"
              r"|\bi'm now|\bi am now|\blet me|\bi can|\bi'd be (?:happy|glad|delighted) to"
              r"|\bi would be (?:happy|glad|delighted) to|\bi'd love to|\bi would love to|\b(?:happy|glad) to"
              r"|\bi'm (?:happy|glad) to|\bi am (?:happy|glad) to|\bi'm|\bi am|\ballow me to|\bshall i|\bshould i"
              r"|\b(?:would you like|do you want|want) me to)")
_ADVERBS: Final = (r"(?:now |just |go ahead and |gone ahead and |quickly |gladly |certainly |definitely |also "
                   r"|right away |help you |help |be |been |ready to |about to |try to |try and |already "
                   r"|successfully |all )*")
# Words after which the next one is all but always a verb: any verb there is a promise, but talking.
_PROMISING: Final = (r"(?:\bi'll|\bi will|\bi'm going to|\bi am going to|\bim going to|\bi'm gonna|\bi'm about to"
                     r"|\bi am about to|\bi'm ready to|\bi am ready to|\blet me|\bi'd be (?:happy|glad|delighted) to"
                     r"|\bi would be (?:happy|glad|delighted) to|\bi'd love to|\bi would love to|\bi can help you"
                     r"|\bi've just|\bi have just|\bi'll go ahead and)")
_PROMISING_ADVERBS: Final = (r"(?:(?:be )?(?:happy|glad|delighted) to |now |just |quickly |gladly |certainly "
                             r"|definitely |also |right away |help you |help |go ahead and |be sure to |make sure to )*")
# What the hub may well do there: talk ("I'll explain", "let me think", "I can help you understand").
_TALKING: Final = (
    r"(?:explain|tell|say|answer|describe|suggest|recommend|help|try|give|share|be|need|assume|leave|stop|wait|"
    r"think|see|know|clarify|summari[sz]e|break|walk|guide|cover|outline|focus|talk|chat|provide|offer|recap|"
    r"rephrase|repeat|mention|point|paint|list|name|define|compare|calculate|work|figure|spell|translate|write|"
    r"compose|sing|count|assist|hear|listen|learn|understand|imagine|pretend|guess|hope|consider|elaborate|expand|"
    r"illustrate|teach|show you how|plan|choose|decide|pick(?! up)|prepare|brainstorm|organi[sz]e|answer|quiz|warn|"
    r"been|heard|learned|learnt|noticed|realised|realized|remembered|thought|read you|play (?:a |the )?(?:game|quiz)|"
    r"do (?:my|our) best|do what i can|go (?:over|through|into|step)|remind you that|add that|start (?:by|with|off)|"
    r"begin (?:by|with)|put (?:it|this|that) (?:simply|another way|this way|differently|briefly|plainly|in perspective)|"
    r"get (?:this straight|started|to the point|back to the question)|make (?:this|it|that) (?:simple|clear|quick|short|easy)|"
    r"take (?:a guess|a stab|a moment)|keep (?:it|this|that|things|my answers?) (?:short|brief|simple|in mind)|"
    # words that are no verb at all
    r"with|a|an|the|that|this|it|you|your|to|in|on|for|out|up|more|some|any|here|there|not|never|only|always|"
    r"still|sure|so|as|if|what|how|why|when|where|who|which|all|no|really|and|or|but|me|my|our|we|us|them|they|"
    r"those|these|anything|something|everything|again|too|very|first|then)")
_SETTLED: Final = (r"ordered|booked|reserved|sent|placed|added|scheduled|set|turned|switched|locked|unlocked|paid|"
                   r"posted|recorded|saved|cancell?ed|on (?:its|the) way|on (?:your|the) (?:list|order|calendar)")
_FACTUAL: Final = r"(?:is|are|was|were|can|could|means|involves|requires|helps|lets|allows|usually|typically|may|might|should|will)"

CLAIM: Final = re.compile(
    # "Sure, I'd be happy to order more coffee pods", "I've added", "I'm reading your messages", "Let me check"
    rf"{_ME}\s+{_ADVERBS}(?:(?:{_DOING})\b(?! (?:a |the )?(?:game|quiz|along|twenty questions)\b)|{_DOING_WITH})"
    # "I'll renew your books", "I'm ready to pick it up", "I can help you sign up": a verb that is not talk
    rf"|{_PROMISING}\s+{_PROMISING_ADVERBS}(?!{_TALKING}\b)[a-z]{{2,}}\b"
    # "Turning on the lights now", "Calling mum", "Added coffee pods to your list", but not "Booking a flight is easy"
    # nor "Boiling an egg for a runny yolk is...": a subject of up to 8 words before its verb
    rf"|^(?:(?:ok|okay|sure|alright|of course|done|great|right)[,!.]* )?(?:now )?(?:{_DONE})\b"
    rf"(?!\w* (?:\w+ ){{0,7}}{_FACTUAL}\b)(?! (?:in|by|during|from|up by|as) )"
    # "Done!", "Will do.", "Consider it done", "Coming right up", "Now playing"
    r"|^(?:done|all done|all set|there you go|there you are|consider it done|on it|right away|coming right up|"
    r"will do|you got it|now playing|it's done|that's done)\b"
    # "Your order has been placed", "The lights are now on", "Reminder set for five"
    rf"|\byour (?:[\w']+ ){{0,3}}(?:has|have|is|are) (?:now |been |all |successfully )*(?:{_SETTLED})\b"
    rf"|\b(?:the|it|that|they|this) (?:[\w']+ ){{0,3}}(?:has|have) (?:now |all |successfully )*been (?:{_SETTLED})\b"
    r"|\b(?:is|are) now (?:on|off|open|closed|locked|unlocked|playing|set|booked|warming|heating|cooling|recording)\b"
    r"|^(?:\w+ )?(?:reminder|alarm|timer|order|booking|reservation|call|message|email|text|payment) "
    r"(?:set|placed|sent|booked|made|added|scheduled|confirmed|started)\b")

# A piece that only agrees, after which the next one says what it is agreeing to.
AGREEING: Final = re.compile(
    r"(?:(?:sure|of course|certainly|absolutely|okay|ok|alright|all right|yes|yeah|great|no problem|got it|right|"
    r"sounds good|(?:i'm |i am |i'd be |i would be )?(?:happy|glad) to help(?: (?:you )?with that)?|"
    r"i can help(?: you)?(?: with that)?|of course i can|yes i can|sure thing)[,.!\s]*)+")

# Yes to a request, with nothing done: "Sure, you can get up at six", "I can make it louder" (said to a
# question, "I can set timers" only says what the hub can do).
_AGREED: Final = (r"(?:(?:sure|of course|certainly|absolutely|okay|ok|alright|all right|yes|yeah|no problem|great|"
                  r"sounds good)[,.!]*\s+)")
GRANTING: Final = re.compile(
    rf"^{_AGREED}+(?:you (?:can|could|may|will|should|just)|that'?s (?:fine|no problem|done)"
    r"|i can (?:certainly |definitely )?help(?: you)? with (?:that|this|it))\b"
    rf"|^{_AGREED}*i can\s+{_PROMISING_ADVERBS}(?!{_TALKING}\b)[a-z]{{2,}}\b")
# A question asking whether one may, on plain words: "can I freeze bread", "do I need a coat".
_PERMISSION: Final = (r"^(?:can|could|may|might|shall|do|will|need|must) (?:i|we)\b"
                      r"|^(?:is it|would it be|its) (?:ok|okay|alright|fine|safe|possible)\b")

HONESTY: Final = HonestyWords(
    polite=re.compile(_POLITE),
    clauses=re.compile(_CLAUSES),
    about=re.compile(_ABOUT),
    acts=ACTS,
    cannot="I can't do that.",
    abilities=(("clock", "tell", "the time and date"), ("timers", "set", "timers"), ("alarms", "set", "alarms"),
               ("reminders", "set", "reminders"), ("lists", "keep", "a shopping list"),
               ("volume", "change", "my volume"), ("home_assistant", "control", "your home through Home Assistant")),
    ability="{verb} {things}",
    can_do="I can {abilities}.",
    claim=CLAIM,
    agreeing=AGREEING,
    granting=GRANTING,
    permission=re.compile(_PERMISSION),
)

# --------------------------------------------------------------------------------------
# Emergencies (matched on plain words, at the start of a clause, politeness stripped)

_HELP: Final = (r"ambulance|police|cops|fire (?:brigade|department|service|engine)|firemen|fire ?fighters|paramedics|"
                r"emergency services|999|911|112|000|nine nine nine|nine one one|one one two|coastguard|"
                r"mountain rescue|help(?=$| now| quick| please)")
_SOMEONE: Final = (r"i|ive|im|we|weve|were|she|shes|he|hes|they|theyve|theyre|someone|someones|somebody|somebodys|"
                   r"(?:the |my |our )?(?:mum|mom|dad|nan|nana|gran|granny|grandma|grandad|grandpa|husband|wife|"
                   r"partner|son|daughter|baby|child|kid|brother|sister|friend|neighbour|neighbor)s?")
_STRUCK: Final = (r"(?:had|having) (?:a )?(?:fall|heart attack|stroke|seizure|allergic reaction)|"
                  r"fallen(?! (?:in love|for|asleep|behind|out|off|through|short|apart|silent|ill|quiet))|"
                  r"fell (?:down|over)(?! (?:laughing|asleep))|collapsed|passed out|fainted|blacked out|"
                  r"(?:stopped|not) breathing|unconscious|unresponsive|choking|overdosed|"
                  r"(?:cant|can not|cannot) (?:breathe\b|get up$|move$)|bleeding (?:badly|a lot|heavily|everywhere)|"
                  r"(?:badly|really|seriously|very) (?:hurt|injured)|(?:hurt|injured)$|being attacked|drowning$")
_BURNING: Final = (r"house|home|kitchen|flat|room|bedroom|lounge|building|garage|shed|roof|pan|chip pan|oven|toaster|"
                   r"microwave|car|bin|curtains|sofa|bed|upstairs|downstairs|it|something|everything|the place")

EMERGENCY: Final = EmergencyWords(
    request=re.compile(
        # "call an ambulance", "get the police", "ring nine nine nine", "send help"
        rf"(?:(?:call|ring|phone|dial|get|fetch|send for|send|contact)(?: me| us| for)? (?:an? |the |some )?"
        rf"(?:{_HELP})\b"
        # "help, I've fallen", "my dad has collapsed", "she's not breathing", "I can't breathe"
        rf"|(?:i think |i believe |i reckon )?(?:{_SOMEONE})(?: (?:has|have|is|are|just|been|had))* (?:{_STRUCK})"
        # "there's a fire", "the kitchen is on fire", "fire!"
        r"|(?:theres|there is) (?:a )?fire\b(?! (?:in the )?(?:drill|alarm|pit|place|fireplace|grate|hearth|stove|"
        r"wood burner|log burner|burner|barbecue|bbq|exit|door|extinguisher|station|escape|safety|risk|going|"
        r"lit|burning nicely))"
        rf"|(?:the |my |our )?(?:\w+ )?(?:{_BURNING}) (?:is|are|has caught|caught|s) (?:on )?fire\b|fire$|fire fire\b"
        # "help help", "somebody help", "it's an emergency", "there's an intruder"
        r"|help help\b|(?:someone|somebody|anybody|anyone) help\b|(?:its|this is) an emergency\b"
        r"|(?:medical|real) emergency\b|(?:theres|there is) (?:an intruder|someone in the house|a burglar)\b"
        r"|(?:someone|somebody)(?:s| is) breaking in\b"
        # "an ambulance!", "police, quick" (and "I need an ambulance", its politeness stripped)
        r"|(?:an? |the )?(?:ambulance|paramedics|police|fire brigade)(?: now| please| quick| quickly)*$)"),
    said="I can't make calls, so call {number} from a phone now.",
)
