"""The NeuTTS phoneme corpus: 200 sentences per language (en-us, de, fr-fr, es), built from word lists
and punctuation patterns with a pinned seed, so every mark of phonemizer's set, decimal numbers, quotes,
brackets and marks at the start, inside and at the end of a line are covered."""
import random

WORDS = {
    "en-us": {
        "subjects": ["the old record", "four friends", "my neighbour", "this little machine", "the weather",
                     "a quiet river", "our teacher", "the red bicycle", "everyone here", "the morning train"],
        "verbs": ["was", "became", "seemed", "will be", "could be", "has been", "looked", "sounded", "felt", "stayed"],
        "ends": ["really wonderful", "far too loud", "strangely calm", "ready at last", "quite impossible",
                 "in the garden", "on the table", "under the bridge", "over there", "worth the wait"],
        "starts": ["well", "yes", "honestly", "however", "still", "anyway", "so", "oh", "look", "listen"],
    },
    "de": {
        "subjects": ["der alte Mann", "vier Freunde", "meine Nachbarin", "diese kleine Maschine", "das Wetter",
                     "ein ruhiger Fluss", "unser Lehrer", "das rote Fahrrad", "jeder hier", "der Morgenzug"],
        "verbs": ["wurde", "war", "schien", "wird", "ist", "blieb", "klang", "wirkte", "bleibt", "sah"],
        "ends": ["wirklich wunderbar", "viel zu laut", "seltsam ruhig", "endlich fertig", "ganz unmöglich",
                 "im Garten", "auf dem Tisch", "unter der Brücke", "dort drüben", "das Warten wert"],
        "starts": ["also", "ja", "ehrlich gesagt", "jedoch", "trotzdem", "na gut", "so", "oh", "schau", "hör zu"],
    },
    "fr-fr": {
        "subjects": ["le vieil homme", "quatre amis", "ma voisine", "cette petite machine", "le temps",
                     "une rivière tranquille", "notre professeur", "le vélo rouge", "tout le monde", "le train du matin"],
        "verbs": ["était", "devint", "semblait", "sera", "est-il", "restait", "paraissait", "sonnait", "a-t-il été", "reste"],
        "ends": ["vraiment merveilleux", "beaucoup trop fort", "étrangement calme", "enfin prêt", "tout à fait impossible",
                 "dans le jardin", "sur la table", "sous le pont", "là-bas", "peut-être ailleurs"],
        "starts": ["eh bien", "oui", "franchement", "cependant", "pourtant", "bref", "alors", "oh", "regarde", "écoute"],
    },
    "es": {
        "subjects": ["el viejo", "cuatro amigos", "mi vecina", "esta pequeña máquina", "el tiempo",
                     "un río tranquilo", "nuestro profesor", "la bicicleta roja", "todos aquí", "el tren de la mañana"],
        "verbs": ["era", "fue", "parecía", "será", "es", "estaba", "sonaba", "quedó", "sigue", "resultó"],
        "ends": ["realmente maravilloso", "demasiado fuerte", "extrañamente tranquilo", "listo por fin", "imposible",
                 "en el jardín", "sobre la mesa", "bajo el puente", "allí", "digno de la espera"],
        "starts": ["bueno", "sí", "sinceramente", "sin embargo", "aun así", "en fin", "entonces", "oh", "mira", "escucha"],
    },
}

# {s}: a start word, {a}/{b}: clauses, {n}: a number, {d}: a decimal number with a comma or a point.
PATTERNS = [
    "{A}.", "{A}!", "{A}?", "{S}, {a}.", "{A}; {b}.", "{A}: {b}!", "{A} — {b}.", "{A}… {b}?",
    "\"{A}\", {b}.", "«{A}», {b}.", "“{A}” {b}.", "{A} ({b}).", "{A} [{b}]!", "{A} {{{b}}}.",
    "¿{A}?", "¡{A}!", "{A}, {n} times.", "{A} at {d}.", "{A}, {d}, {b}.", "...{a}", "{A},{b}", "{A} ! {b} ?",
    "{S}... {a}!!", "({A})", "{A} - {b}.", "{A}!? {b}.", "{A}   {b}.", "{S}: «{a}» — {b}…",
]


def sentences(language, count=200, seed=15):
    rng = random.Random(f"{seed}-{language}")
    words = WORDS[language]

    def clause():
        return f"{rng.choice(words['subjects'])} {rng.choice(words['verbs'])} {rng.choice(words['ends'])}"

    out = []
    while len(out) < count:
        pattern = PATTERNS[len(out) % len(PATTERNS)] if len(out) < len(PATTERNS) else rng.choice(PATTERNS)
        a, b = clause(), clause()
        start = rng.choice(words["starts"])
        number = str(rng.randint(2, 99))
        decimal = f"{rng.randint(1, 20)}{rng.choice([',', '.'])}{rng.randint(1, 9)}"
        text = pattern.format(A=a[0].upper() + a[1:], a=a, b=b, S=start[0].upper() + start[1:], n=number, d=decimal)
        if text not in out:
            out.append(text)
    return out
