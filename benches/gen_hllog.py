#!/usr/bin/env python3
"""Synthetic Half-Life log standard generator for the parse-speed benchmark, modelled on the
public logs: CS:GO-style maps (positions after blocks, `attacked` damage lines, purchases, round
results with scores, `(headshot)`) alternating with TF2-style maps (`attacker_position`
properties, kill assists, point captures, Round_Win), as one file of several logs. GAMES picks the maps: `mixed` (the default) alternates, `cs` and
`tf` make every map one game.
usage: gen_hllog.py MAPS [SEED] [GAMES]"""
import random, sys
random.seed(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
nmaps = int(sys.argv[1])
games = sys.argv[3] if len(sys.argv) > 3 else "mixed"
assert games in ("mixed", "cs", "tf"), "GAMES is mixed, cs or tf"
out = sys.stdout
cs_weapons = ["ak47", "m4a1", "awp", "deagle", "glock", "usp_silencer", "sg556", "famas", "hegrenade", "knife"]
tf_weapons = ["scattergun", "tf_projectile_rocket", "tf_projectile_pipe", "minigun", "sniperrifle", "knife", "flamethrower"]
names = ["Erik", "Joe", "Niles", "Vladimir", "Pete", "Ringo", "Wolf", "Zach", "Gary", "Yanni",
         "foxfern [dw!d]", "Snips ||AG||", "-ßЯҢ- Nintova", "[H2K]BubbleAlan ʚϊɞ", "\\\\.=. *CHE", "a\"<b>", "Target", "Budi", "kraka", "信じる"]
t = [2014, 2, 12, 11, 0, 0]
def stamp():
    t[5] += random.randint(0, 3)
    while t[5] >= 60: t[5] -= 60; t[4] += 1
    while t[4] >= 60: t[4] -= 60; t[3] += 1
    t[3] %= 24
    return "L %02d/%02d/%04d - %02d:%02d:%02d: " % (t[1], t[2], t[0], t[3], t[4], t[5])
def pos(): return "%d %d %d" % (random.randint(-3000, 3000), random.randint(-3000, 3000), random.randint(-200, 400))
for g in range(nmaps):
    tf = g % 2 == 1 if games == "mixed" else games == "tf"
    players = random.sample(names, 12)
    teams = ["Red", "Blue"] if tf else ["TERRORIST", "CT"]
    ids = {p: ("<%d><[U:1:%d]>" % (i + 2, 1000000 + names.index(p))) if (tf or i % 3 == 0) else ("<%d><BOT>" % (i + 2)) for i, p in enumerate(players)}
    side = {p: teams[i % 2] for i, p in enumerate(players)}
    def blk(p): return '"%s%s<%s>"' % (p, ids[p], side[p])
    out.write(stamp() + 'Log file started (file "logs/L%04d.log") (game "/srv/%s") (version "5568")\n' % (g, "tf" if tf else "csgo"))
    mp = "cp_badlands" if tf else "de_dust2"
    out.write(stamp() + 'Loading map "%s"\n' % mp)
    out.write(stamp() + 'Started map "%s" (CRC "1159425449")\n' % mp)
    for p in players:
        out.write(stamp() + '"%s%s<>" connected, address "none"\n' % (p, ids[p]))
        out.write(stamp() + '"%s%s<>" joined team "%s"\n' % (p, ids[p], side[p]))
    score = [0, 0]
    for r in range(16):
        out.write(stamp() + 'World triggered "Round_Start"\n')
        for k in range(random.randint(4, 9)):
            a, v = random.sample(players, 2)
            if tf:
                w = random.choice(tf_weapons)
                out.write(stamp() + '%s killed %s with "%s" (attacker_position "%s") (victim_position "%s")\n' % (blk(a), blk(v), w, pos(), pos()))
                h = random.choice(players)
                if h not in (a, v):
                    out.write(stamp() + '%s triggered "kill assist" against %s (assister_position "%s") (attacker_position "%s") (victim_position "%s")\n' % (blk(h), blk(v), pos(), pos(), pos()))
            else:
                w = random.choice(cs_weapons)
                for _ in range(2):
                    out.write(stamp() + '%s [%s] attacked %s [%s] with "%s" (damage "27") (damage_armor "3") (health "73") (armor "97") (hitgroup "chest")\n' % (blk(a), pos(), blk(v), pos(), w))
                out.write(stamp() + '%s [%s] killed %s [%s] with "%s"%s\n' % (blk(a), pos(), blk(v), pos(), w, " (headshot)" if random.random() < 0.4 else ""))
                out.write(stamp() + '%s purchased "%s"\n' % (blk(v), random.choice(cs_weapons)))
            out.write(stamp() + '%s say "gg %d"\n' % (blk(random.choice(players)), k))
        win = random.randrange(2)
        score[win] += 1
        if tf:
            out.write(stamp() + 'Team "%s" triggered "pointcaptured" (cp "0") (cpname "#cap") (numcappers "1") (player1 %s) (position1 "%s")\n' % (teams[win], blk(players[win]), pos()))
            out.write(stamp() + 'World triggered "Round_Win" (winner "%s")\n' % teams[win])
            out.write(stamp() + 'Team "%s" current score "%d" with "6" players\n' % (teams[0], score[0]))
        else:
            out.write(stamp() + 'Team "%s" triggered "%s" (CT "%d") (T "%d")\n' % (teams[win], ["Terrorists_Win", "CTs_Win"][win], score[1], score[0]))
            out.write(stamp() + 'Team "CT" scored "%d" with "6" players\n' % score[1])
        out.write(stamp() + 'World triggered "Round_End"\n')
    out.write(stamp() + 'World triggered "Game_Over" reason "Reached Win Limit"\n')
    out.write(stamp() + 'Log file closed\n')
