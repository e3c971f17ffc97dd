//! A synthetic public-server crowd as a Quake 3 `games.log`, written like
//! `../shared/bench/gen_q3log.py GAMES SEED PLAYERS`: free-for-all games of 8 drawn from `crowd`
//! names `Player<k>` with a heavy tail (half the seats go to regulars, Pareto-distributed, so
//! `Player0` meets nearly everyone; half to anyone), each on a server of its own name.

use std::fmt::Write;

/// A small deterministic generator (xorshift64*), so the log is the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The log text: `games` games, `kills` frags each, among `crowd` names.
pub fn crowd_log(games: usize, crowd: usize, kills: usize, seed: u64) -> String {
    let mut rng = Rng(seed.max(1));
    let mut out = String::new();
    let ts = |t: usize| format!("{:3}:{:02}", t / 60, t % 60);
    let weapons = [
        "MOD_ROCKET",
        "MOD_RAILGUN",
        "MOD_SHOTGUN",
        "MOD_PLASMA",
        "MOD_LIGHTNING",
    ];
    for g in 0..games {
        let _ = writeln!(
            out,
            "{} InitGame: \\sv_hostname\\crowd{g}\\g_gametype\\0\\fraglimit\\50\\mapname\\q3dm{}\\gamename\\baseq3",
            ts(0),
            1 + g % 7
        );
        let mut picked: Vec<usize> = Vec::new();
        while picked.len() < 8 {
            let k = if rng.unit() < 0.5 {
                // Pareto with shape 1: 1 / (1 - u), floored, from 0.
                ((1.0 / (1.0 - rng.unit())) as usize - 1).min(crowd - 1)
            } else {
                rng.below(crowd)
            };
            if !picked.contains(&k) {
                picked.push(k);
            }
        }
        for (cid, k) in picked.iter().enumerate() {
            let _ = writeln!(out, "{} ClientConnect: {cid}", ts(0));
            let _ = writeln!(
                out,
                "{} ClientUserinfoChanged: {cid} n\\Player{k}\\t\\0\\model\\sarge",
                ts(0)
            );
            let _ = writeln!(out, "{} ClientBegin: {cid}", ts(0));
        }
        let mut t = 0;
        for _ in 0..kills {
            t += 1 + rng.below(4);
            let (a, v) = (rng.below(8), rng.below(8));
            let w = weapons[rng.below(weapons.len())];
            let _ = writeln!(
                out,
                "{} Kill: {a} {v} 6: Player{} killed Player{} by {w}",
                ts(t),
                picked[a],
                picked[v]
            );
        }
        let _ = writeln!(out, "{} Exit: Fraglimit hit.", ts(t));
        let _ = writeln!(out, "{} ShutdownGame:", ts(t));
    }
    out
}

/// `log` (a [`crowd_log`]) with every third game a duel (`g_gametype 1`, its own ladder beside
/// free for all) and the games dated `hours` apart from 2024-01-01 (`g_timestamp`), so that
/// monthly seasons and several game type ladders appear on the player pages.
pub fn with_ladders_and_dates(log: &str, hours: i64) -> String {
    let mut out = String::with_capacity(log.len() + log.len() / 50);
    let mut game = 0i64;
    for line in log.split_inclusive('\n') {
        if !line.contains(" InitGame: ") {
            out.push_str(line);
            continue;
        }
        let line = line.trim_end_matches('\n');
        let line = if game % 3 == 2 {
            line.replacen("\\g_gametype\\0", "\\g_gametype\\1", 1)
        } else {
            line.to_string()
        };
        let when = chrono::DateTime::from_timestamp(1_704_067_200 + game * hours * 3600, 0)
            .expect("a date in range");
        let _ = writeln!(
            out,
            "{line}\\g_timestamp\\{}",
            when.format("%Y-%m-%d %H:%M:%S")
        );
        game += 1;
    }
    out
}
