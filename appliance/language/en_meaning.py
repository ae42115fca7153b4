"""English requests told apart by meaning (thinking/meaning.py): the examples (en_meaning_examples.py), and
each request said again the one way the skills read it."""

from __future__ import annotations

from typing import Final

from appliance.language import MeaningWords
from appliance.language.en_meaning_examples import EXAMPLES, HOME, QUESTIONS

SAID_AS: Final[dict[str, tuple[str, ...]]] = {
    "timer_set": ("set a {name} timer for {duration}", "set a timer for {duration}"),
    "timer_add": ("add {duration} to the {name} timer", "add {duration} to the timer"),
    "timer_take": ("take {duration} off the {name} timer", "take {duration} off the timer"),
    "timer_to": ("change the {name} timer to {duration}", "change the timer to {duration}"),
    "timer_cancel": ("cancel the {name} {timer}", "cancel the {timer}"),  # only a timer said to be ended
    "timer_left": ("how long is left on the {name} timer", "how long is left on the timer"),
    "timer_list": ("what timers do i have",),
    "alarm_set": ("wake me up at {time} {day}", "wake me up at {time}"),
    "alarm_cancel": ("cancel the alarm for {time} {day}", "cancel the alarm for {time}", "cancel the alarm {day}",
                     "cancel the alarm"),
    "alarm_list": ("what alarms do i have {day}", "what alarms do i have"),
    "reminder_set": ("remind me in {duration} to {what}", "remind me {day} at {time} to {what}",
                     "remind me at {time} to {what}", "remind me {day} to {what}",
                     "set a timer for {duration}"),  # "ping me in ten minutes": nothing to say but that the time is up
    "reminder_cancel": ("cancel the reminder to {what}", "cancel the reminder {day}", "cancel the reminder"),
    "reminder_list": ("what reminders do i have {day}", "what reminders do i have"),
    "list_add": ("add {item} to the {list} list", "add {item} to the list"),
    "list_remove": ("remove {item} from the {list} list", "remove {item} from the list"),
    "list_read": ("what is on the {list} list", "what is on the list"),
    "list_count": ("how many things are on the {list} list", "how many things are on the list"),
    "list_has": ("is there {item} on the {list} list", "is there {item} on the list"),
    "list_clear": ("clear the {list} list", "clear the list"),
    "volume_up": ("turn the volume up",),
    "volume_down": ("turn the volume down",),
    "volume_set": ("set the volume to {level}",),
    "volume_mute": ("mute",),
    "volume_ask": ("what is the volume",),
    "time": ("what time is it",),
    "date": ("what is the date {day}", "what is the date"),
    "day": ("what day is it {day}", "what day is it"),
    "stop": ("stop",),
    "nevermind": ("never mind",),
}

MEANING: Final = MeaningWords(
    examples=EXAMPLES,
    questions=QUESTIONS,
    home=HOME,
    said_as=SAID_AS,
    lists={"shopping": "shopping", "grocery": "shopping", "groceries": "shopping", "shop": "shopping",
           "to do": "to do", "todo": "to do", "jobs": "to do", "chores": "to do"},
    message_marks=frozenset({"to", "about", "that"}),
    message_ends=frozenset({"at", "in", "on", "by", "for", "after", "this", "next", "the", "around"}),
)
