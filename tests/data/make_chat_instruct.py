#!/usr/bin/python3
"""make_chat_instruct.py - writes tests/data/chat-instruct.jsonl, the small
chat dataset of examples/chat-instruct.sh: conversations about Aesop's
fables (George Fyler Townsend's translation, 1867, public domain; the morals
are quoted from it) in the shapes instruct datasets take: OpenAI messages
with and without a system prompt, several turns, a tool call round with
per-record tools, a reasoning_content turn, and ShareGPT conversations. Deterministic: run it again to get the same bytes.

Usage: python3 tests/data/make_chat_instruct.py [OUT]"""
import json
import os
import sys

FABLES = [
    ("The Fox and the Grapes",
     "A famished fox saw clusters of ripe grapes hanging from a trellised vine. He tried every trick to get at "
     "them, but wearied himself in vain, for he could not reach them. At last he turned away, saying: "
     "\"The grapes are sour, and not ripe as I thought.\"",
     "It is easy to despise what you cannot get."),
    ("The Hare and the Tortoise",
     "A hare one day ridiculed the short feet and slow pace of the tortoise, who replied, laughing: \"Though you "
     "be swift as the wind, I will beat you in a race.\" The tortoise never for a moment stopped, but went on "
     "with a slow but steady pace straight to the end of the course. The hare, lying down by the wayside, fell "
     "fast asleep.",
     "Slow but steady wins the race."),
    ("The Ant and the Grasshopper",
     "In a field one summer's day a grasshopper was hopping about, chirping and singing to its heart's content. "
     "An ant passed by, bearing along with great toil an ear of corn he was taking to the nest. When the winter "
     "came the grasshopper had no food and found itself dying of hunger.",
     "It is best to prepare for the days of necessity."),
    ("The Lion and the Mouse",
     "A lion was awakened from sleep by a mouse running over his face. Rising up angrily, he caught him and was "
     "about to kill him, when the mouse piteously entreated, saying: \"If you would only spare my life, I would "
     "be sure to repay your kindness.\" Shortly after, the lion was caught by hunters, and the mouse gnawed the "
     "rope with his teeth and set him free.",
     "No act of kindness, however small, is ever wasted."),
    ("The Boy Who Cried Wolf",
     "A shepherd-boy, who watched a flock of sheep near a village, brought out the villagers three or four "
     "times by crying out, \"Wolf! Wolf!\" and when his neighbors came to help him, laughed at them for their "
     "pains. The wolf, however, did truly come at last.",
     "There is no believing a liar, even when he speaks the truth."),
    ("The Crow and the Pitcher",
     "A crow perishing with thirst saw a pitcher, and hoping to find water, flew to it with delight. When he "
     "reached it, he discovered that it contained so little water that he could not possibly get at it. He took "
     "as many stones as he could carry and cast them one by one with his beak into the pitcher, until he brought "
     "the water within his reach and thus saved his life.",
     "Necessity is the mother of invention."),
]

SYSTEM = "You are a patient teacher of classic literature. Answer in plain, short sentences."
TOOLS = [{"type": "function", "function": {
    "name": "lookup_fable",
    "description": "Find a fable of Aesop by its title and return its text and moral",
    "parameters": {"type": "object", "properties": {
        "title": {"type": "string", "description": "The fable's title"}}, "required": ["title"]}}}]


def records():
    for k, (title, text, moral) in enumerate(FABLES):
        story = "Here is the fable \"%s\": %s" % (title, text)
        # a single turn, with a system prompt on every other record
        msgs = [{"role": "user", "content": story + "\n\nWhat is its moral?"},
                {"role": "assistant", "content": "The moral is: %s" % moral}]
        if k % 2 == 0:
            msgs.insert(0, {"role": "system", "content": SYSTEM})
        yield {"messages": msgs}
        # two turns
        yield {"messages": [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": "Tell me the fable \"%s\" in one paragraph." % title},
            {"role": "assistant", "content": text},
            {"role": "user", "content": "And what does it teach?"},
            {"role": "assistant", "content": moral}]}
        # a tool round, with the record's tools
        call = {"id": "call_%d" % k, "type": "function",
                "function": {"name": "lookup_fable", "arguments": {"title": title}}}
        yield {"messages": [
            {"role": "user", "content": "Look up \"%s\" and give me its moral." % title},
            {"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": call["id"], "content": json.dumps({"text": text, "moral": moral})},
            {"role": "assistant", "content": "Its moral: %s" % moral}], "tools": TOOLS}
        # reasoning (content as a list of parts is left out: Qwen 3's
        # template, like transformers, refuses it)
        yield {"messages": [
            {"role": "user", "content": "Who is wiser in \"%s\", and why?" % title},
            {"role": "assistant", "reasoning_content": "The fable ends with its moral: %s" % moral,
             "content": "The wiser one is the one the moral praises: %s" % moral}]}
        # ShareGPT
        yield {"conversations": [
            {"from": "human", "value": "Summarize \"%s\" in a sentence." % title},
            {"from": "gpt", "value": text.split(". ")[0] + "."}]}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "chat-instruct.jsonl")
    with open(out, "w", encoding="utf-8") as f:
        for r in records():
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
