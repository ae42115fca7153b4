"""The model's answer checked before it is said: a first sentence claiming an action the turn did not
take ("Sure, I've ordered...", "Turning on the lights now", "Done!") is replaced by the truth."""

from __future__ import annotations

from typing import Final

from appliance.language import LanguagePack, pack
from appliance.speaking.sentences import CJK_TERMINATORS, CLOSERS, TERMINATORS, split_all
from appliance.thinking.honesty import is_request, truth, truth_of
from appliance.thinking.understood import Understood

PIECES_LOOKED_MAX: Final = 3  # pieces of an answer's start looked at for a claim ("Sure!" "I've added...")


class ClaimCheck:
    """One answer of the model, its start looked at before it is said: a first sentence claiming an
    action ("Sure, I've ordered...", "Turning on the lights now", "Done!") is not said; `look` hands
    back the truth instead, and the rest of that answer goes unsaid. A first piece that only agrees
    ("Sure!") or ends mid-sentence keeps the next piece looked at, and so does any first piece of an answer to a
    request, up to PIECES_LOOKED_MAX; after that every piece passes at once.

    The model never acts, so any action it claims is one the turn did not take; and to a request (not a
    question) its "Sure, you can..." says yes to what nothing here did.

    A piece that reads as a claim but ends mid-sentence waits, unsaid (`waiting`), for the next one, which
    may make it an answer: the first piece is cut before its verb ("Setting a timer | is easy.", "Boiling an
    egg for a runny yolk | is..."). Still a claim with the next piece, or with nothing after it (`settle`),
    the truth is said instead, and none of the claim was heard.
    """

    def __init__(self, question: str, words: LanguagePack | None = None,
                 understood: Understood | None = None) -> None:
        self.question = question
        self.words = words or pack()
        self.understood = understood
        """The question as the policy read it (Think's), where the model answers what it sent there; None: the
        question's words are read here (an answer started early, before the question was confirmed)."""
        self.open = True
        """Still looking: no piece has settled the answer's start yet."""
        self._request = understood.request if understood is not None else is_request(question, self.words)
        """The question asks the hub to do something: "Sure, you can..." is then a claim."""
        self._looked = 0
        self._start = ""
        """The pieces looked at so far, joined: a claim may span them ("Your order | has been placed")."""
        self.waiting = False
        """The last piece looked at reads as a claim but ends mid-sentence: it is not said before the next
        piece (or the end of the answer) has decided it."""

    def look(self, piece: str) -> str | None:
        """The truth to say instead of `piece` when it, or the answer's start up to it, claims an action,
        else None (say it)."""
        if not self.open:
            return None
        said = piece.strip().lower().replace("\u2019", "'")
        self._start = f"{self._start} {said}".strip()
        honesty = self.words.honesty
        ended = said.rstrip(CLOSERS)[-1:] in TERMINATORS + CJK_TERMINATORS
        if honesty.claim.search(said) or honesty.claim.search(self._start) \
                or (self._request and honesty.granting.search(self._start)):
            if ended or self.waiting:
                return self._claimed()
            self.waiting = True  # "Setting a timer | is easy.": its verb is still to come
            self._looked += 1
            return None
        self.waiting = False
        self._looked += 1
        # to a request, the first pieces are all looked at: "I'm sorry to hear that. I'll make sure to..."
        if self._looked >= PIECES_LOOKED_MAX or (ended and not honesty.agreeing.fullmatch(said) and not self._request):
            self.open = False
        return None

    def settle(self) -> str | None:
        """At the end of the answer: the truth when its last piece looked at still waits (a claim with
        nothing after it), else None."""
        return self._claimed() if self.open and self.waiting else None

    def _claimed(self) -> str:
        self.open = self.waiting = False
        if self.understood is not None:
            return truth_of(self.understood.act, self.words)
        return truth(self.question, self.words)


def checked(question: str, answer: str, words: LanguagePack | None = None,
            understood: Understood | None = None) -> str:
    """A whole answer of the model, checked as ClaimCheck checks one said piece by piece: the truth
    instead when its first sentence claims an action, else the answer as it was."""
    words = words or pack()
    check = ClaimCheck(question, words, understood)
    for piece in split_all(answer, words=words.sentences):
        said = check.look(piece)
        if said is not None:
            return said
        if not check.open:
            break
    return check.settle() or answer
