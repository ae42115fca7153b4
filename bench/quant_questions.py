"""The fixed questions bench/quant.py asks every quantisation: short factual ones a kitchen speaker gets.

Each question comes with the words a right answer must contain. Every entry of the list must be found
in the answer; an entry with "|" is met by any one of its alternatives ("60|sixty"). Words are matched
whole and without regard to case (quant.judge), so "8" is not found in "18". The answers are the ones
no one disputes; a question with more than one right answer names them all as alternatives.
"""

from __future__ import annotations

from typing import Final

QUESTIONS: Final[tuple[tuple[str, tuple[str, ...]], ...]] = (
    ("What is the capital of Australia?", ("canberra",)),
    ("What is the capital of Canada?", ("ottawa",)),
    ("What is the capital of Japan?", ("tokyo",)),
    ("What is the capital of Spain?", ("madrid",)),
    ("What is the capital of Italy?", ("rome",)),
    ("What is the capital of Egypt?", ("cairo",)),
    ("Which is the largest planet in our solar system?", ("jupiter",)),
    ("Which planet is closest to the sun?", ("mercury",)),
    ("Which planet is known as the red planet?", ("mars",)),
    ("What is the largest ocean on Earth?", ("pacific",)),
    ("What is the longest river in Africa?", ("nile",)),
    ("What is the tallest mountain in the world?", ("everest",)),
    ("On which continent is Kenya?", ("africa",)),
    ("What is the chemical symbol for gold?", ("au",)),
    ("What gas do plants take in from the air to make their food?", ("carbon dioxide|co2|co₂",)),
    ("What is the boiling point of water in degrees Celsius?", ("100|hundred",)),
    ("At what temperature in Celsius does water freeze?", ("0|zero",)),
    ("How many minutes are in an hour?", ("60|sixty",)),
    ("How many days are in a leap year?", ("366",)),
    ("How many hours are in a day?", ("24|twenty-four|twenty four",)),
    ("How many legs does a spider have?", ("8|eight",)),
    ("How many continents are there?", ("7|seven",)),
    ("How many sides does a hexagon have?", ("6|six",)),
    ("How many grams are in a kilogram?", ("1000|thousand",)),
    ("How many centimetres are in a metre?", ("100|hundred",)),
    ("How many teaspoons are in a tablespoon?", ("3|three",)),
    ("What is twelve times twelve?", ("144",)),
    ("What is seven times eight?", ("56|fifty-six|fifty six",)),
    ("What is one hundred divided by four?", ("25|twenty-five|twenty five",)),
    ("Who wrote Romeo and Juliet?", ("shakespeare",)),
    ("Who painted the Mona Lisa?", ("leonardo|da vinci",)),
    ("Who was the first person to walk on the moon?", ("armstrong",)),
    ("Who developed the theory of relativity?", ("einstein",)),
    ("In which country are the pyramids of Giza?", ("egypt",)),
    ("What language is mainly spoken in Brazil?", ("portuguese",)),
    ("What is the currency of Japan?", ("yen",)),
    ("What is the main ingredient of guacamole?", ("avocado|avocados",)),
    ("Which grain is used to make risotto?", ("rice",)),
    ("What is the main ingredient in hummus?", ("chickpea|chickpeas|garbanzo",)),
    ("Which fruit is dried to make raisins?", ("grape|grapes",)),
    ("What do bees make?", ("honey",)),
    ("What is the largest mammal in the world?", ("whale",)),
    ("What is the fastest land animal?", ("cheetah",)),
    ("What is a baby cat called?", ("kitten",)),
    ("What colour do you get when you mix blue and yellow?", ("green",)),
    ("What is the hardest natural substance?", ("diamond|diamonds",)),
    ("Which organ pumps blood around the body?", ("heart",)),
    ("Which vitamin does the skin make in sunlight?", ("vitamin d",)),
)
"""(question, the words a right answer contains), in the order they are asked."""
