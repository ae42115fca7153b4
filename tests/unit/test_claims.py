"""The model's answer checked before it is said: a first sentence claiming an action is replaced by the
truth on every way an answer leaves (the Responder, `ask`, the hub's microphone, an early answer, a
room's satellite, Home Assistant's handle); a plain answer, a refusal and a later sentence pass untouched."""

from __future__ import annotations

import threading
import time

import pytest

from appliance.commands.ask import Asker
from appliance.config import Config
from appliance.conversation import claims
from appliance.conversation.policy import Policy
from appliance.conversation.responder import CLAIM, Delta, ModelDone, Responder, Sentence, Update
from appliance.language import pack
from appliance.speaking.sentences import SentenceSplitter
from appliance.thinking import honesty
from tests.fixtures.fakes import FakeChat, FakeSink, FakeSkills, FakeTts, Harness, early_harness
from tests.fixtures.waits import WAIT_S, wait_for

WORDS = pack()
CANNOT = honesty.truth("Tell the neighbours.")  # a request that names nothing the hub knows of
ORDER_TRUTH = honesty.cannot_do("Order more coffee pods.").text  # type: ignore[union-attr]


CONVERSATION = Config().conversation


def responder(chat: FakeChat, clause_words: int = CONVERSATION.first_clause_min_words,
              phrase_words: int = CONVERSATION.first_phrase_max_words) -> Responder:
    """The Responder as the daemon builds it: the configured first-piece rules, the English pack."""
    return Responder(chat, FakeTts(), lambda: SentenceSplitter(clause_words, phrase_words, WORDS.sentences),
                     time.monotonic, words=WORDS)


def collect(answer) -> list[Update]:
    seen: list[Update] = []
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        update = answer.next_update(0.05)
        if update is not None:
            seen.append(update)
        elif answer.done:
            return seen
    raise AssertionError("the answer did not end")


def said(question: str, answer: str, clause_words: int = CONVERSATION.first_clause_min_words
         ) -> tuple[list[str], str, str, FakeChat]:
    """(sentences spoken, the text the Delta updates show, the stop reason, the chat) for a model answer."""
    chat = FakeChat(answer)
    updates = collect(responder(chat, clause_words).think(question, FakeSink()))
    done = next(u for u in updates if isinstance(u, ModelDone))
    return ([u.text for u in updates if isinstance(u, Sentence)], "".join(u.text for u in updates if isinstance(u, Delta)),
            done.stats.stop_reason if done.stats else "", chat)


@pytest.mark.parametrize("answer", [
    "Sure, I'd be happy to order more coffee pods! What brand do you like?",
    "I've added coffee pods to your order. They will arrive on Tuesday.",
    "Done! Your coffee pods are on their way.",
    "I'll order them for you right away.",
    "Ordering more coffee pods now. Anything else?",
    "Sure! I've placed the order.",  # a first piece that only agrees: the next is looked at too
    "Your order has been placed.",
    "I can help you order more coffee pods from your usual shop.",  # cut before "from": the first piece claims
    "Your coffee pods have been ordered.",  # "Your coffee pods | have been ordered": the claim spans two pieces
    "The order for the pods has now been placed.",  # "The order | for the pods | has now been placed."
])
@pytest.mark.parametrize("clause_words", [4, 2], ids=["first piece of 4 words", "of 2"])
def test_a_claimed_action_is_not_said_and_the_truth_is_instead(answer: str, clause_words: int) -> None:
    sentences, shown, reason, _chat = said("Order more coffee pods.", answer, clause_words)
    assert sentences[-1] == ORDER_TRUTH
    # At most a first piece that claims nothing is heard before the truth ("Your coffee pods...").
    heard = " ".join(sentences[:-1]).lower()
    assert len(sentences) <= 2 and not WORDS.honesty.claim.search(heard), sentences
    assert not any(word in heard for word in ("ordered", "placed", "added", "arrive", "order them")), sentences
    assert shown.endswith(ORDER_TRUTH) and "placed" not in shown and "arrive" not in shown
    assert reason == CLAIM


def test_the_model_is_stopped_at_the_claim_and_the_rest_is_never_written() -> None:
    sentences, shown, _reason, chat = said("Order more coffee pods.",
                                           "I've ordered them. " + "They will come soon. " * 20)
    assert sentences == [ORDER_TRUTH] and shown == ORDER_TRUTH
    assert chat.cancelled.is_set()  # the generator was closed: no more tokens, no turn kept


def test_a_claim_to_an_unknown_request_gets_the_general_truth_and_what_the_hub_can_do() -> None:
    sentences, shown, _reason, _chat = said("Do the thing for the neighbours.", "Turning on the lights now. Enjoy!")
    assert sentences == [CANNOT] and shown == CANNOT
    assert CANNOT.startswith(WORDS.honesty.cannot) and "set timers" in CANNOT


@pytest.mark.parametrize("answer", [
    "The capital of France is Paris. It is on the Seine.",
    "I can't place calls, but I can tell you the time.",
    "I'm sorry, I can't order things. I can keep you company though.",
    "To book a flight, visit an airline's website. You pay online.",
    ("Napoleon was a French emperor who led many wars across Europe in the early nineteenth century. "
     "He ordered the troops to march on Moscow in 1812. I've read that it was a disaster."),
    "Sure! A podcast is a series of spoken episodes you can listen to.",
])
def test_a_plain_answer_a_refusal_and_a_later_sentence_pass_untouched(answer: str) -> None:
    sentences, shown, reason, chat = said("Tell me something.", answer)
    assert shown == answer  # every word the model wrote, shown as written
    assert " ".join(sentences).replace(",", "") == answer.replace(",", "")  # a piece's last comma is not said
    assert reason == "stop" and not chat.cancelled.is_set()


def test_the_check_holds_back_no_audio_the_first_piece_is_said_while_the_model_writes() -> None:
    chat = FakeChat("The capital of France is Paris, a city on the Seine with many bridges.", delay_s=0.02)
    updates = collect(responder(chat).think("capital of France?", FakeSink()))
    first = next(i for i, u in enumerate(updates) if isinstance(u, Sentence))
    last_words = next(i for i, u in enumerate(updates) if isinstance(u, Delta) and "bridges" in u.text)
    assert updates[first].text == "The capital of France"  # the first phrase, cut before "is"
    assert first < last_words  # said before the model had written its last words


def test_ask_shows_and_records_the_truth_not_the_claim() -> None:
    chat = FakeChat("Sure, I'm reading your messages now. You have three.")
    asker = Asker(Config(), chat_factory=lambda: chat)
    shown: list[str] = []
    record = asker.ask("What do my texts say?", shown.append)  # no act the pack knows: the model answers
    assert record.route == "llm" and record.stop_reason == CLAIM
    assert record.answer == CANNOT == "".join(shown) and record.sentences == [CANNOT]


def test_the_hubs_microphone_says_the_truth_instead_of_a_claim() -> None:
    h = Harness(chat=FakeChat("I've turned on the kitchen lights. Enjoy!"))
    h.ask()
    h.wait_idle()
    (rec,) = h.records
    assert rec.route == "llm" and rec.answer == CANNOT and h.tts.texts == [CANNOT]
    assert rec.stats is not None and rec.stats.stop_reason == CLAIM


def test_an_early_answer_is_checked_before_it_is_heard() -> None:
    h = early_harness(chat=FakeChat("Calling mum now. She should pick up soon."))
    h.feed("WAKE", "SAY:what is the capital", "SAY:of France", "SIL")  # the early answer starts
    wait_for(lambda: h.c.answers.early.counts["started"] == 1, "the early answer")
    h.feed("SIL")
    h.wait_idle()
    (rec,) = h.records
    assert rec.preemptive and rec.answer == CANNOT
    assert [p for p in h.sink.played if p.startswith("TTS:")] == [f"TTS:{CANNOT}#1", f"TTS:{CANNOT}#2"]


def test_home_assistants_handle_gets_the_truth_instead_of_a_claim() -> None:
    policy = Policy(FakeSkills(), None)
    reply = policy.handle("Order more coffee pods.", FakeChat("Okay, ordering them now."), threading.Event())
    assert reply.text == ORDER_TRUTH and reply.handled
    plain = policy.handle("Capital of France?", FakeChat("Paris. It is big."), threading.Event())
    assert plain.text == "Paris. It is big."


def test_whole_answers_are_checked_like_spoken_ones() -> None:
    assert claims.checked("Book a table.", "Sure! I've booked a table for two at eight.") == \
        honesty.cannot_do("Book a table.").text  # type: ignore[union-attr]
    assert claims.checked("Who was Napoleon?", "A French emperor. He ordered the troops.") == \
        "A French emperor. He ordered the troops."


@pytest.mark.parametrize(("answer", "pieces"), [
    ("Setting a timer is easy. You open the app.", ["Setting a timer", "is easy.", "You open the app."]),
    ("Boiling an egg for a runny yolk is generally recommended to take six minutes.",
     ["Boiling an egg", "for a runny yolk is generally recommended to take six minutes."]),
])
def test_a_first_piece_cut_before_its_verb_waits_for_it_and_is_said_as_an_answer(answer: str,
                                                                                  pieces: list[str]) -> None:
    sentences, shown, reason, _chat = said("How long should I boil an egg for a runny yolk?", answer)
    assert sentences == pieces and shown == answer and reason == "stop"


@pytest.mark.parametrize("answer", ["Setting a timer for ten minutes now.", "Turning on the kitchen lights"])
def test_a_claim_cut_mid_sentence_is_never_heard_whether_more_comes_or_the_answer_ends(answer: str) -> None:
    question = "Do the thing for the neighbours."
    sentences, shown, reason, _chat = said(question, answer)
    assert sentences == [CANNOT] and shown == CANNOT and reason == CLAIM
    assert claims.checked(question, answer, WORDS) == CANNOT


def test_after_the_first_sentence_every_piece_passes_without_a_look() -> None:
    check = claims.ClaimCheck("Who was Napoleon?", WORDS)
    assert check.look("Napoleon was a French emperor.") is None
    assert not check.open
    assert check.look("I've ordered the troops to march.") is None  # not the hub's claim: never looked at


def test_to_a_request_a_claim_after_a_first_sentence_is_not_said() -> None:
    check = claims.ClaimCheck("Jog my memory about the parcel.", WORDS)
    assert check.look("I'm sorry to hear about the parcel.") is None  # said: it claims nothing
    assert check.open
    assert check.look("I'll make sure to tell you at four.") == CANNOT
    assert claims.checked("Who was Napoleon?", "A French emperor. I'll make sure to explain.", WORDS) == \
        "A French emperor. I'll make sure to explain."  # to a question, only its first sentence is looked at


def test_a_rooms_satellite_hears_the_truth_instead_of_a_claim() -> None:
    from tests.unit.test_wyoming_satellites import start_hub

    hub = start_hub()
    try:
        kitchen = hub.satellites["kitchen"]
        # A room's conversation answers with its questions so far: "1: i have ordered the coffee pods".
        _, audio = kitchen.answer(kitchen.ask(["WAKE", "SAY:i have ordered the coffee pods", "SIL", "SIL"]))
        record = hub.turn_of("kitchen")
        truth = honesty.truth("i have ordered the coffee pods")
        assert record.route == "llm" and record.answer == truth
        assert audio and all(a.startswith(f"TTS:{truth}") for a in audio)
    finally:
        hub.link.stop()
        for sat in hub.satellites.values():
            sat.close()


@pytest.mark.parametrize("first", [
    "I'll renew your library books.", "I'm ready to pick up your prescription.", "Sure, I can help you sign up for the gym.",
    "I'll let the dog out.", "I've just charged your car.", "I'd be happy to fetch the post.", "Let me check that for you.",
    "I'll remind you to drink water.", "I'm reading your messages, please go ahead.", "Now playing jazz radio.",
    "The lights are now on.", "Reminder set for five o'clock.", "Would you like me to order more?",
])
def test_a_first_sentence_promising_or_claiming_any_errand_is_a_claim(first: str) -> None:
    assert claims.ClaimCheck("Do the errand.", WORDS).look(first) == CANNOT


@pytest.mark.parametrize("first", [
    "I'll explain how it works.", "Let me know if you need anything else.", "I'd be happy to help you with that!",
    "I can help you understand how online ordering works.", "I'll do my best to answer.", "Let me think about that.",
    "I'm going to assume you mean the city.", "Let me put it simply: water boils at 100 degrees.",
    "I'll tell you a joke.", "I'll write you a short poem.", "I've heard that octopuses have three hearts.",
    "I'll translate that for you: merci.", "Setting a timer is easy.", "Open the app and tap order.",
    "I don't have access to your messages.", "I cannot order things.", "Ordering online is simple.",
    "Boiling an egg for a runny yolk is generally recommended to take six minutes.",
])
def test_a_first_sentence_that_talks_is_said(first: str) -> None:
    assert claims.ClaimCheck("Tell me something.", WORDS).look(first) is None


@pytest.mark.parametrize(("request_", "first"), [
    ("I have to be up at six tomorrow.", "Sure, you can get up at six tomorrow."),
    ("Make it louder.", "Sure, I can make it louder."),
    ("Bump the sound up a bit.", "I can turn it up for you."),
    ("We need more bin bags.", "Okay, that's fine."),
    ("Could you sort the heating out?", "Of course! You can just relax."),
    ("Mind the soup for me.", "Sure, I can help you with that!"),
    ("Water the plants for me.", "Sure! I can help with that by reminding you."),
])
def test_to_a_request_a_yes_with_nothing_done_is_a_claim(request_: str, first: str) -> None:
    assert claims.ClaimCheck(request_, WORDS).look(first) is not None


@pytest.mark.parametrize(("question", "first"), [
    ("Can I freeze bread?", "Sure, you can freeze bread for three months."),
    ("How do I set an alarm on my phone?", "Sure, you can set one in the Clock app."),
    ("What's a good timer for boiled eggs?", "I can recommend six minutes for a soft egg."),
    ("Do I need a coat for a walk in November?", "Yes, you should take one."),
    ("Tell me about Paris.", "Sure, I can tell you about Paris."),
    ("How do I keep rice from sticking?", "Sure, I can help you with that!"),
    ("Tell me a joke.", "Sure! Why did the chicken cross the road?"),
])
def test_to_a_question_a_yes_is_an_answer(question: str, first: str) -> None:
    assert claims.ClaimCheck(question, WORDS).look(first) is None
