// The live view: one event stream (/api/events) feeds both pages; nothing reloads.
"use strict";

const view = {
  clock: null,          // the last clock the server sent
  clockAt: 0,           // when it arrived (ms, this browser's clock)
  tables: new Map(),    // table -> {table, button, final, seats: [[seat, player, stack, bounty?]]}
  places: {},           // player -> place
  ranking: [],
  feed: [],             // newest first
};
document.body.dataset.loadedAt = String(Date.now());  // a reload would change it (tests)

const $ = (id) => document.getElementById(id);
const chips = (n) => Number(n).toLocaleString("en-US");
const money = (cents) =>
  (cents / 100).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const ordinal = (n) => {
  const s = n % 100 >= 11 && n % 100 <= 13 ? "th" : { 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th";
  return n + s;
};
const blinds = (b) => `${chips(b[0])} / ${chips(b[1])}`;
function duration(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  const mm = h ? String(m).padStart(2, "0") : String(m);
  return (h ? h + ":" : "") + mm + ":" + String(r).padStart(2, "0");
}
function setText(id, text) {
  const el = $(id);
  if (el && el.textContent !== text) el.textContent = text;
}
function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

// --- the stream -----------------------------------------------------------------------------

function connect() {
  const source = new EventSource("api/events");
  source.addEventListener("snapshot", (e) => {
    const s = JSON.parse(e.data);
    view.tables = new Map(s.tables.map((t) => [t.table, t]));
    view.places = s.places;
    view.ranking = s.ranking;
    view.feed = s.feed.slice().reverse();
    setClock(s.clock);
    renderAll();
  });
  source.addEventListener("update", (e) => {
    const u = JSON.parse(e.data);
    for (const [table, t] of Object.entries(u.tables)) {
      if (t === null) view.tables.delete(Number(table));
      else view.tables.set(t.table, t);
    }
    Object.assign(view.places, u.places);
    view.ranking = u.ranking;
    view.feed = u.feed.slice().reverse().concat(view.feed).slice(0, 150);
    setClock(u.clock);
    renderAll(Object.keys(u.tables).map(Number));
  });
  source.addEventListener("clock", (e) => setClock(JSON.parse(e.data).clock));
  source.onerror = () => setText("status", "reconnecting");
}

function setClock(clock) {
  view.clock = clock;
  view.clockAt = Date.now();
  tick();
}

// --- the clock ------------------------------------------------------------------------------

function secondsLeft(value) {
  const c = view.clock;
  if (value === null || value === undefined) return null;
  if (c.status !== "running") return value;
  return value - (Date.now() - view.clockAt) / 1000;
}

function tick() {
  const c = view.clock;
  if (!c) return;
  const status = $("status");
  const breakLeft = secondsLeft(c.break_seconds_left);
  const onBreak = breakLeft !== null && breakLeft > 0;
  const label = onBreak && c.status === "running" ? "break" : c.status;
  status.textContent = label;
  status.dataset.status = label;
  document.body.dataset.status = label;
  setText("tournament", c.tournament);
  document.title = c.tournament + (document.body.classList.contains("clock-page") ? " clock" : " lobby");
  let time, caption;
  if (c.status === "waiting") {
    time = c.level_unit === "minutes" ? duration(60 * c.level_length) : String(c.hands_left);
    caption = "waiting for the start";
  } else if (onBreak) {
    time = duration(breakLeft);
    caption = "break: play resumes in";
  } else if (c.level_unit === "minutes") {
    time = duration(secondsLeft(c.seconds_left));
    caption = c.status === "paused" ? "clock paused" : "left in this level";
  } else {
    time = String(c.hands_left);
    caption = c.hands_left === 1 ? "hand left in this level" : "hands left in this level";
  }
  const seats = Object.keys(c.tickets || {}).length;  // SAT-2: a satellite ends with N winners
  if (c.winner) {
    time = seats ? String(seats) : c.winner;
    caption = seats ? "seats won, each a ticket to the target" : "wins the tournament";
  }
  if (c.cancelled) {
    time = "--:--";
    caption = `cancelled: ${c.cancelled}`;
  }
  setText("clock-time", time);
  setText("clock-caption", caption);
  setText("level", c.level ? String(c.level) : "1");
  setText("blinds", blinds(c.blinds));
  setText("ante", c.blinds[2] ? chips(c.blinds[2]) : "none");
  const next = `${blinds(c.next_blinds)}${c.next_blinds[2] ? " ante " + chips(c.next_blinds[2]) : ""}`;
  setText("next", c.break_after_level ? `${c.break_after_level}-minute break, then ${next}` : next);
  const seated = c.players_left > 0 || c.entries > 0;  // nobody before the start
  setText("players-left", seated ? chips(c.players_left) : "-");
  setText("entries", seated ? `of ${chips(c.entries)} entries` : "seated at the start");
  setText("average-stack", seated ? chips(c.average_stack) : "-");
  setText("average-bb", seated && c.blinds[1] ? `${chips(Math.round(c.average_stack / c.blinds[1]))} big blinds` : "");
  setText("prize-pool", seated ? money(c.prize_pool) : "-");
  setText("tables-count", `${c.tables} table${c.tables === 1 ? "" : "s"}`);
  const banner = $("banner");
  if (banner) {
    const text = c.gap ? "events are missing: reload the page" :
      c.final_table && !c.winner && !c.cancelled ? `final table: table ${c.final_table}` :
      c.hand_for_hand ? "hand-for-hand play" : "";
    banner.hidden = !text;
    banner.textContent = text;
  }
  const payouts = $("payouts");
  if (payouts) {
    const key = JSON.stringify(c.payouts);
    if (payouts.dataset.key !== key) {
      payouts.dataset.key = key;
      payouts.replaceChildren(...c.payouts.slice(0, 9).map((amount, k) => {
        const li = el("li");
        li.append(el("span", "place", ordinal(k + 1)), el("span", "amount", money(amount)));
        return li;
      }));
      if (c.payouts.length > 9) payouts.append(el("li", "more", `+ ${c.payouts.length - 9} more paid`));
      if (!c.payouts.length) payouts.append(el("li", "more", "known once the field is seated"));
    }
  }
  const procedure = $("balancing");
  if (procedure && c.balancing) {  // TDA-2: the published order of breaking and balancing
    const key = JSON.stringify(c.balancing);
    if (procedure.dataset.key !== key) {
      procedure.dataset.key = key;
      $("balancing-panel").hidden = !c.balancing.procedure.length;
      setText("balancing-policy", c.balancing.policy);
      procedure.replaceChildren(...c.balancing.procedure.map((line) => el("li", null, line)));
      const order = c.balancing.break_order;
      setText("break-order", order.length ? `Tables break in this order: ${order.slice(0, 30).join(", ")}` +
        (order.length > 30 ? ` and ${order.length - 30} more` : "") : "");
    }
  }
  const summary = $("summary");
  if (summary) {
    const left = c.winner ? (seats ? `${seats} seats won` : `${c.winner} wins`) : c.cancelled ? "cancelled" :
      `${time} ${c.level_unit === "minutes" || onBreak ? "left" : "hands left"}`;
    summary.textContent = `Level ${c.level || 1} · ${blinds(c.blinds)}${c.blinds[2] ? " ante " + chips(c.blinds[2]) : ""}` +
      ` · ${left} · ${chips(c.players_left)}/${chips(c.entries)} players`;
  }
}

// --- the lobby ------------------------------------------------------------------------------

function tableCard(t) {
  const card = el("article", "table-card" + (t.final ? " final" : ""));
  card.dataset.table = t.table;
  const head = el("h3", null, `Table ${t.table}`);
  if (t.final) head.append(el("span", "tag", "final table"));
  head.append(el("span", "count", `${t.seats.length} player${t.seats.length === 1 ? "" : "s"}`));
  card.append(head);
  const list = el("ol", "seats");
  for (const [seat, player, stack, bounty] of t.seats) {
    const row = el("li");
    row.dataset.player = player;
    row.append(el("span", "seat", String(seat)), el("span", "name", player));
    if (seat === t.button) row.append(el("span", "button", "D"));
    if (bounty !== undefined) row.append(el("span", "bounty", money(bounty)));  // KO-1, KO-2
    row.append(el("span", "stack", chips(stack)));
    list.append(row);
  }
  card.append(list);
  return card;
}

function renderTables(changed) {
  const box = $("tables");
  if (!box) return;
  if (changed === undefined) {
    box.replaceChildren(...[...view.tables.keys()].sort((a, b) => a - b).map((k) => tableCard(view.tables.get(k))));
    return;
  }
  for (const table of changed) {
    const old = box.querySelector(`[data-table="${table}"]`);
    const t = view.tables.get(table);
    if (!t) { if (old) old.remove(); continue; }
    const card = tableCard(t);
    if (old) { old.replaceWith(card); continue; }
    const after = [...box.children].find((c) => Number(c.dataset.table) > table);
    box.insertBefore(card, after || null);
  }
}

function renderAll(changed) {
  tick();
  renderTables(changed);
  const ranking = $("ranking");
  if (ranking) {
    ranking.replaceChildren(...view.ranking.map(([player, stack]) => {
      const li = el("li");
      li.append(el("span", "name", player), el("span", "stack", chips(stack)));
      return li;
    }));
  }
  const feed = $("feed");
  if (feed) {
    feed.replaceChildren(...view.feed.slice(0, 60).map((item) => {
      const li = el("li", item.kind, item.text);
      li.prepend(el("time", null, new Date(item.ts * 1000).toLocaleTimeString("en-GB")));
      return li;
    }));
  }
  search();
}

function search() {
  const input = $("search");
  const out = $("search-result");
  if (!input || !out) return;
  const query = input.value.trim().toLowerCase();
  if (!query) { out.replaceChildren(); return; }
  const seated = [];
  for (const t of view.tables.values()) for (const [seat, player, stack] of t.seats) seated.push({ player, stack, table: t.table, seat });
  const found = seated.filter((p) => p.player.toLowerCase().includes(query)).slice(0, 8);
  const rows = found.map((p) => {
    const rank = 1 + seated.filter((q) => q.stack > p.stack).length;
    return `${p.player}: table ${p.table} seat ${p.seat}, ${chips(p.stack)} chips, ${ordinal(rank)} of ${seated.length}`;
  });
  for (const [player, place] of Object.entries(view.places)) {
    if (rows.length < 8 && player.toLowerCase().includes(query) && !found.some((p) => p.player === player)) {
      rows.push(`${player}: ${place === 1 ? "the winner" : "out in " + ordinal(place) + " place"}`);
    }
  }
  out.replaceChildren(...(rows.length ? rows : ["nobody by that name"]).map((r) => el("div", null, r)));
}

// --- operator actions -----------------------------------------------------------------------

async function act(action) {
  const token = $("token").value || sessionStorage.getItem("mtt-operator") || "";
  sessionStorage.setItem("mtt-operator", token);
  const body = action === "cancel" ? JSON.stringify({ reason: $("cancel-reason").value }) : "";
  const result = $("action-result");
  result.textContent = `${action}...`;
  try {
    const response = await fetch(`api/control/${action}`, {
      method: "POST",
      headers: { "Authorization": `Bearer ${token}`, "Content-Type": "application/json" },
      body,
    });
    const answer = await response.json();
    result.textContent = response.ok ? `${action}: done` : `${action} refused: ${answer.error}`;
    result.dataset.ok = String(response.ok);
  } catch (err) {
    result.textContent = `${action} failed: ${err}`;
    result.dataset.ok = "false";
  }
}

for (const button of document.querySelectorAll("button[data-action]")) {
  button.addEventListener("click", () => act(button.dataset.action));
}
if ($("token")) $("token").value = sessionStorage.getItem("mtt-operator") || "";
if ($("search")) $("search").addEventListener("input", search);
setInterval(tick, 250);
connect();
