/* Clans of Caledonia web viewer: replays, tournaments and games against bots.
   One script for every page; the page's data is the JSON in <script id="clans-data">.
   The board is the server's SVG map (drawn once) plus a units layer redrawn per position. */
(function () {
  "use strict";
  const DATA = JSON.parse(document.getElementById("clans-data").textContent || "null");
  const PAGE = document.body.dataset.page;
  const STANDALONE = document.body.dataset.standalone === "1";
  const app = document.getElementById("app");
  const GOODS = ["wool", "milk", "grain", "cheese", "bread", "whisky"];
  const timing = { last_ms: 0, max_ms: 0, count: 0, total_ms: 0 };
  window.clansTiming = timing;

  function esc(s) {
    return String(s === null || s === undefined ? "" : s).replace(/[&<>"']/g,
      (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
  }
  function seatLabel(p, names) { return "P" + p + (names && names[p] ? " " + names[p] : ""); }
  function swatch(colour) { return '<span class="swatch" style="background:' + esc(colour) + '"></span>'; }

  async function api(method, url, body) {
    const opts = { method: method, headers: {} };
    if (body !== undefined) { opts.headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(body); }
    const r = await fetch(url, opts);
    let doc = null;
    try { doc = await r.json(); } catch (e) { doc = { error: "the server sent no JSON (status " + r.status + ")" }; }
    if (!r.ok) { const err = new Error(doc && doc.error ? doc.error : "request failed: " + r.status); err.status = r.status; throw err; }
    return doc;
  }

  // ------------------------------------------------------------------------------ the board
  function Board(container, map, colours, names) {
    container.innerHTML = map.svg;
    this.svg = container.querySelector("svg");
    this.units = this.svg.querySelector("#units");
    this.centres = map.centres;
    this.colours = colours;
    this.names = names;
    this.spaces = {};
    for (const g of this.svg.querySelectorAll(".space")) this.spaces[g.dataset.space] = g;
    this.portText = {};
    for (const t of this.svg.querySelectorAll(".port-tile")) this.portText[t.dataset.port] = t;
    this.legal = [];
  }
  Board.prototype.render = function (frame, legalSpaces) {
    const parts = [];
    const onSpace = {};
    for (const u of frame.units) {
      const c = this.centres[u[0]];
      if (!c) continue;
      const port = c[2] === 1;
      const nth = onSpace[u[0]] = (onSpace[u[0]] || 0) + 1;   // Industria: a second unit on the space
      const shift = nth > 1 ? 9 : 0;
      const x = (port ? c[0] + 13 : c[0]) + shift, y = (port ? c[1] + 9 : c[1] + 3) - shift, r = port ? 8 : 10;
      parts.push('<g class="unit" data-seat="' + u[1] + '" data-space="' + u[0] + '"><title>' +
        esc(seatLabel(u[1], this.names) + ": " + u[3]) + '</title><circle cx="' + x + '" cy="' + y + '" r="' + r +
        '" fill="' + this.colours[u[1]] + '" stroke="black" stroke-width="1.2"/><text x="' + x + '" y="' + (y + 3.8) +
        '">' + esc(u[2]) + "</text></g>");
    }
    for (const s of frame.blocked) {
      const c = this.centres[s];
      parts.push('<g class="blocked"><title>blocked: a neutral unit (solo) or a covered space (Tighter Game Map)</title><circle cx="' + c[0] + '" cy="' + (c[1] + 3) +
        '" r="10" fill="#8a8a8a" stroke="black"/><text x="' + c[0] + '" y="' + (c[1] + 6.5) + '">X</text></g>');
    }
    for (const m of frame.markets || []) {
      const c = this.centres[m.space];
      const open = m.goods.filter((g, k) => !m.covered[k]);
      parts.push('<g class="blocked market"><title>' + esc("Farmers market: " + open.join(" / ")) + '</title><circle cx="' +
        c[0] + '" cy="' + (c[1] + 3) + '" r="11" fill="#c89b3c" stroke="black"/><text x="' + c[0] + '" y="' + (c[1] + 6.5) +
        '">FM</text></g>');
    }
    this.units.innerHTML = parts.join("");
    for (const p of frame.port_tiles) {
      const t = this.portText[p.space];
      if (t) t.textContent = String(p.tile);
    }
    for (const s of this.legal) s.classList.remove("legal");
    this.legal = [];
    if (legalSpaces) {
      for (const id of legalSpaces) {
        const g = this.spaces[id];
        if (g) { g.classList.add("legal"); this.legal.push(g); }
      }
    }
  };

  // ------------------------------------------------------------------------------ panels
  function legendHTML(frame, names, colours, agents) {
    let s = '<div class="legend">';
    for (const pl of frame.players) {
      const p = pl.seat;
      const agent = agents && agents[p] && agents[p] !== names[p] ? " [" + agents[p] + "]" : "";
      s += '<span class="seat' + (frame.current_player === p ? " current" : "") + '" data-seat="' + p + '">' +
        swatch(colours[p]) + esc("P" + p + " " + names[p] + agent) + (pl.clan ? " &middot; " + esc(pl.clan) : "") + "</span>";
    }
    return s + "</div>";
  }

  function statusHTML(frame, names) {
    let s = '<div class="status"><b>Round ' + frame.round + "/5</b> &middot; " + esc(frame.phase) +
      " &middot; " + frame.decisions_made + " decisions";
    if (frame.decision) {
      s += '<div class="question"><b>' + esc(seatLabel(frame.decision.player, names)) + "</b> (" +
        esc(frame.decision.kind) + "): " + esc(frame.decision.text) + "</div>";
    } else if (frame.terminal) {
      s += '<div class="question"><b>Game over:</b> ' + frame.scores.map((r, p) => esc(seatLabel(p, names)) + " " +
        r.total + " VP").join(", ") + "</div>";
    }
    return s + "</div>";
  }

  function marketHTML(frame, names, colours) {
    let s = '<section class="panel market"><h3>Market</h3><table><tr><th>good</th><th>price</th><th>step</th><th>Merchants</th></tr>';
    for (const g of GOODS) {
      const m = frame.market[g];
      let merch = "";
      for (const pl of frame.players) {
        for (const dir of ["buy", "sell"]) {
          const n = pl.merchants.on_market[dir + ":" + g];
          if (n) merch += '<span class="merchant">' + swatch(colours[pl.seat]) + dir + " " + n + "</span> ";
        }
      }
      s += "<tr><td>" + g + "</td><td>£" + m.price + "</td><td>" + m.step + "</td><td>" + merch + "</td></tr>";
    }
    return s + "</table></section>";
  }

  function exportHTML(frame) {
    let s = '<section class="panel export"><h3>Export board</h3><ol class="contracts" start="0">';
    frame.contracts.forEach((c, k) => {
      s += "<li>" + (c ? "<b>#" + c.id + "</b> " + esc(c.need) + " &rarr; " + esc(c.gain) : "<i>empty</i>") + "</li>";
    });
    s += "</ol><div>draw pile: " + frame.draw_pile_size + "</div>";
    if (frame.scoring_tiles.length) {
      s += '<div>Scoring tiles: ' + frame.scoring_tiles.map((t, i) => '<span class="tile' +
        (i === frame.round - 1 ? " now" : "") + '">' + t + "</span>").join(" ") + "</div>";
    }
    s += "<div>Import track: " + Object.keys(frame.import_track).map((k) => esc(k) + " " + frame.import_track[k] +
      " (" + frame.import_values[k] + " VP)").join(", ") + "</div>";
    if (frame.port_tiles.length) s += "<div>Port tiles: " + frame.port_tiles.map((p) => "ABCD"[p.slot] + ":" + p.tile).join(" ") + "</div>";
    if (frame.industria) s += "<div>" + esc(frame.industria) + "</div>";
    if (frame.automa_record && frame.automa_record.length) {
      s += "<div>Automa record (latest):<ul>" + frame.automa_record.map((l) => "<li>" + esc(l) + "</li>").join("") + "</ul></div>";
    }
    return s + "</section>";
  }

  // the Automa's turns resolved inside one decision (its card drawn and the action carried out: the game
  // record's lines, as render_text and clans play show them)
  function automaLinesHTML(lines) {
    if (!lines || !lines.length) return "";
    return '<ul class="automa-lines">' + lines.map((l) => "<li>" + esc(l) + "</li>").join("") + "</ul>";
  }

  function automaBoardHTML(a) {
    if (!a) return "";
    return '<div class="automa-board">Automa level ' + esc(a.level) + " (" + esc(a.level_name) + ") &middot; action card " +
      esc(a.action_card || "-") + " &middot; support card " + esc(a.support_card || "-") + " &middot; unit pointer " +
      esc(a.unit_pointer) + " &middot; " + esc(a.cards_in_pile) + " cards in its pile</div>";
  }

  function contractList(list) {
    return list.length ? list.map((c) => "#" + c.id + " (" + esc(c.need) + " &rarr; " + esc(c.gain) + ")").join("; ") : "-";
  }

  function playersHTML(frame, names, colours) {
    let s = '<section class="panel players"><h3>Player boards</h3><div class="boards">';
    for (const pl of frame.players) {
      const p = pl.seat;
      const goods = GOODS.filter((g) => pl.goods[g]).map((g) => g + " " + pl.goods[g]).join(", ") || "-";
      const left = Object.keys(pl.units_on_board).map((u) => u.replace("_", " ") + " " + pl.units_on_board[u]).join(", ");
      const tech = (pl.technology.woodcutter ? "woodcutter " : "") + (pl.technology.miner ? "miner" : "");
      s += '<div class="pboard" data-seat="' + p + '" style="border-color:' + colours[p] + '"><h4>' + swatch(colours[p]) +
        esc(seatLabel(p, names)) + (pl.clan ? " &middot; " + esc(pl.clan) : "") + (pl.passed ? " (passed)" : "") + "</h4>" +
        automaBoardHTML(pl.automa) + '<div class="money">£' + pl.money + " &middot; glory " + pl.glory + " &middot; est. " + frame.vp_estimate[p] + " VP</div>" +
        "<div>goods: " + goods + "</div><div>units left: " + left + "</div>" +
        "<div>units on map: " + pl.units_on_map + "</div><div>Shipping: " + esc(pl.shipping_name) +
        " &middot; Technology: " + (tech || "-") + "</div><div>Merchants: " + pl.merchants.in_stock + " in stock, " +
        pl.merchants.on_board + " on board</div><div>open contracts: " + contractList(pl.open_contracts) + "</div>" +
        "<div>fulfilled: " + pl.fulfilled_contracts.length + " &middot; hops " + pl.hops + " &middot; imports " +
        Object.keys(pl.imports).map((k) => k + " " + pl.imports[k]).join(", ") + "</div></div>";
    }
    return s + "</div></section>";
  }

  function scoreSheetHTML(scores, names, title) {
    const lines = [];
    for (const row of scores) for (const k of Object.keys(row)) {
      if (["total", "money_left", "rank"].indexOf(k) < 0 && lines.indexOf(k) < 0) lines.push(k);
    }
    let s = '<section class="panel scores"><h3>' + esc(title) + '</h3><table class="sheet"><tr><th></th>' +
      scores.map((r, p) => "<th>" + esc(seatLabel(p, names)) + "</th>").join("") + "</tr>";
    for (const k of lines) s += "<tr><td>" + esc(k.replace(/_/g, " ")) + "</td>" + scores.map((r) => "<td>" + (r[k] || 0) + "</td>").join("") + "</tr>";
    s += '<tr class="total"><td>total</td>' + scores.map((r) => "<td>" + r.total + "</td>").join("") + "</tr>";
    s += "<tr><td>money left (tie-break)</td>" + scores.map((r) => "<td>" + r.money_left + "</td>").join("") + "</tr>";
    s += "<tr><td>rank</td>" + scores.map((r) => "<td>" + r.rank + "</td>").join("") + "</tr>";
    return s + "</table></section>";
  }

  // ------------------------------------------------------------------------------ charts
  function lineChart(title, series, colours, labels, cursor, xLabel) {
    const W = 320, H = 150, L = 34, B = 20, T = 18;
    let n = 0, lo = Infinity, hi = -Infinity;
    for (const s of series) { n = Math.max(n, s.length); for (const v of s) { if (v < lo) lo = v; if (v > hi) hi = v; } }
    if (!isFinite(lo)) { lo = 0; hi = 1; }
    if (hi === lo) hi = lo + 1;
    const x = (i) => L + (W - L - 6) * (n > 1 ? i / (n - 1) : 0);
    const y = (v) => T + (H - T - B) * (1 - (v - lo) / (hi - lo));
    let s = '<svg class="chart" viewBox="0 0 ' + W + " " + H + '" width="' + W + '" height="' + H + '"><text x="' + L +
      '" y="12" class="ctitle">' + esc(title) + "</text>";
    s += '<line x1="' + L + '" y1="' + (H - B) + '" x2="' + W + '" y2="' + (H - B) + '" stroke="#999"/>';
    s += '<text x="2" y="' + (T + 4) + '" class="axis">' + Math.round(hi) + '</text><text x="2" y="' + (H - B) + '" class="axis">' +
      Math.round(lo) + '</text><text x="' + (W - 70) + '" y="' + (H - 4) + '" class="axis">' + esc(xLabel) + "</text>";
    series.forEach((sr, p) => {
      const step = Math.max(1, Math.floor(sr.length / 300));
      let d = "";
      for (let i = 0; i < sr.length; i += step) d += (d ? "L" : "M") + x(i).toFixed(1) + "," + y(sr[i]).toFixed(1);
      if (sr.length) d += "L" + x(sr.length - 1).toFixed(1) + "," + y(sr[sr.length - 1]).toFixed(1);
      s += '<path d="' + d + '" fill="none" stroke="' + colours[p] + '" stroke-width="1.8"><title>' + esc(labels[p]) + "</title></path>";
    });
    if (cursor !== null && cursor !== undefined) s += '<line class="cursor" x1="' + x(cursor) + '" y1="' + T + '" x2="' + x(cursor) + '" y2="' + (H - B) + '" stroke="#333" stroke-dasharray="3,2"/>';
    return s + "</svg>";
  }

  function Charts(container, colours, names) { this.el = container; this.colours = colours; this.names = names; this.key = null; }
  Charts.prototype.render = function (frames, cursor) {
    const n = frames[0].players.length;
    const pick = (f) => { const out = []; for (let p = 0; p < n; p++) out.push(frames.map((fr) => f(fr, p))); return out; };
    const labels = []; for (let p = 0; p < n; p++) labels.push(seatLabel(p, this.names));
    this.el.innerHTML = '<section class="panel charts"><h3>Over the game</h3>' +
      lineChart("estimated final VP", pick((fr, p) => fr.vp_estimate[p]), this.colours, labels, cursor, "decision") +
      lineChart("money (£)", pick((fr, p) => fr.players[p].money), this.colours, labels, cursor, "decision") +
      lineChart("units on the map", pick((fr, p) => fr.players[p].units_on_map), this.colours, labels, cursor, "decision") +
      "</section>";
  };

  // ------------------------------------------------------------------------------ a position
  function Position(root, map, colours, names, agents) {
    root.innerHTML = '<div class="position"><div class="left"><div class="legend-slot"></div><div class="board-wrap"></div></div>' +
      '<div class="right"><div class="status-slot"></div><div class="extra-slot"></div><div class="side-slot"></div></div></div>' +
      '<div class="players-slot"></div><div class="charts-slot"></div><div class="scores-slot"></div>';
    this.board = new Board(root.querySelector(".board-wrap"), map, colours, names);
    this.legendEl = root.querySelector(".legend-slot");
    this.statusEl = root.querySelector(".status-slot");
    this.sideEl = root.querySelector(".side-slot");
    this.playersEl = root.querySelector(".players-slot");
    this.scoresEl = root.querySelector(".scores-slot");
    this.charts = new Charts(root.querySelector(".charts-slot"), colours, names);
    this.colours = colours; this.names = names; this.agents = agents;
  }
  // the time to draw one state (board, panels, charts, score sheet, and the browser's layout), for the tests
  function record(t0) {
    void app.offsetHeight;            // force style and layout, so that they are part of the figure
    const ms = performance.now() - t0;
    timing.last_ms = ms; timing.count += 1; timing.total_ms += ms; timing.max_ms = Math.max(timing.max_ms, ms);
  }

  Position.prototype.render = function (frame, legalSpaces, sheetTitle) {
    this.board.render(frame, legalSpaces);
    this.legendEl.innerHTML = legendHTML(frame, this.names, this.colours, this.agents);
    this.statusEl.innerHTML = statusHTML(frame, this.names);
    this.sideEl.innerHTML = marketHTML(frame, this.names, this.colours) + exportHTML(frame);
    this.playersEl.innerHTML = playersHTML(frame, this.names, this.colours);
    this.scoresEl.innerHTML = scoreSheetHTML(frame.scores, this.names,
      sheetTitle || (frame.terminal ? "Final score sheet" : "Score sheet (as if the game ended now)"));
  };

  // ------------------------------------------------------------------------------ replay page
  function replayPage(d) {
    const names = d.names;
    app.innerHTML = '<h2>Replay ' + esc(d.source) + "</h2>" +
      '<div class="meta">' + d.config.num_players + " players &middot; seed " + d.config.seed + " &middot; " +
      d.moves.length + " decisions" + (d.finished ? "" : " (unfinished)") + "</div>" +
      '<div class="controls"><button id="first" title="start (Home)">|&lsaquo; start</button><button id="prevround" title="previous round (PageUp / Up)">&laquo; round</button>' +
      '<button id="prev" title="previous decision (Left)">&lsaquo; back</button><button id="next" title="next decision (Right)">forward &rsaquo;</button>' +
      '<button id="nextround" title="next round (PageDown / Down)">round &raquo;</button><button id="last" title="end (End)">end &rsaquo;|</button>' +
      '<input id="slider" type="range" min="0" max="' + d.moves.length + '" value="0" aria-label="decision">' +
      '<span id="pos"></span></div><div id="move" class="move"></div><div id="pos-root"></div>' +
      '<section class="panel log"><h3>Decisions</h3><ol id="log" start="0"></ol></section>';
    const view = new Position(document.getElementById("pos-root"), d.map, d.colours, names, d.agents);
    const slider = document.getElementById("slider");
    const logEl = document.getElementById("log");
    logEl.innerHTML = d.moves.map((m) => '<li data-i="' + m.index + '"><span class="swatch" style="background:' +
      d.colours[m.player] + '"></span>' + esc(seatLabel(m.player, names)) + " " + esc(m.kind) + ": " + esc(m.text) +
      automaLinesHTML(m.automa) + "</li>").join("");
    const logItems = logEl.children;
    const starts = Object.keys(d.round_starts).map((k) => d.round_starts[k]).sort((a, b) => a - b);
    let i = 0, shown = -1;
    function go(k) {
      const t0 = performance.now();
      i = Math.max(0, Math.min(d.moves.length, k));
      const f = d.frames[i];
      view.render(f, null, i === d.moves.length && d.finished ? "Final score sheet" : null);
      if (shown !== i) view.charts.render(d.frames, i);
      shown = i;
      slider.value = String(i);
      document.getElementById("pos").textContent = "decision " + i + " / " + d.moves.length + " · round " + f.round;
      const last = d.moves[i - 1];
      document.getElementById("move").innerHTML = last ? "Last decision <b>#" + last.index + "</b> by " +
        swatch(d.colours[last.player]) + "<b>" + esc(seatLabel(last.player, names)) + "</b> (" + esc(last.kind) + "): <b>" +
        esc(last.text) + '</b><div class="asked">' + esc(last.question) + "</div>" +
        (last.automa && last.automa.length ? '<div class="automa-now">then the Automa:' + automaLinesHTML(last.automa) + "</div>" : "") :
        "Start of the game (before the first decision)" + (d.automa_start && d.automa_start.length ?
          '<div class="automa-now">the Automa:' + automaLinesHTML(d.automa_start) + "</div>" : "");
      for (const el of logEl.querySelectorAll(".now")) el.classList.remove("now");
      if (last && logItems[i - 1]) logItems[i - 1].classList.add("now");
      document.body.dataset.step = String(i);
      record(t0);
    }
    function nextRound() { for (const s of starts) if (s > i) return go(s); go(d.moves.length); }
    function prevRound() { let t = 0; for (const s of starts) if (s < i) t = s; go(t); }
    document.getElementById("first").onclick = () => go(0);
    document.getElementById("last").onclick = () => go(d.moves.length);
    document.getElementById("prev").onclick = () => go(i - 1);
    document.getElementById("next").onclick = () => go(i + 1);
    document.getElementById("nextround").onclick = nextRound;
    document.getElementById("prevround").onclick = prevRound;
    slider.oninput = () => go(parseInt(slider.value, 10));
    logEl.onclick = (ev) => { const li = ev.target.closest("li[data-i]"); if (li) go(parseInt(li.dataset.i, 10) + 1); };
    document.addEventListener("keydown", (ev) => {
      if (ev.target && ev.target.tagName === "INPUT" && ev.target.type !== "range") return;
      const keys = { ArrowRight: () => go(i + 1), ArrowLeft: () => go(i - 1), ArrowDown: nextRound, PageDown: nextRound,
        ArrowUp: prevRound, PageUp: prevRound, Home: () => go(0), End: () => go(d.moves.length) };
      if (keys[ev.key]) { ev.preventDefault(); keys[ev.key](); }
    });
    const m = /[#&]step=(\d+)/.exec(location.hash);
    go(m ? parseInt(m[1], 10) : 0);
    window.clansReplay = { go: go, get index() { return i; } };
  }

  // ------------------------------------------------------------------------------ play page
  function playPage(initial) {
    let st = initial;
    const map = initial.map;
    const frames = [st.frame];
    app.innerHTML = '<h2>Game ' + esc(st.id) + "</h2>" +
      '<div id="error" class="error" role="alert" hidden></div><div id="turn" class="turn"></div>' +
      '<div class="controls"><button id="undo">Undo my last decision</button><button id="save">Save as a replay</button>' +
      ' <a id="download" href="/api/games/' + encodeURIComponent(st.id) + '/record">download record</a> <span id="saved"></span></div>' +
      '<section class="panel moves"><h3>Your moves</h3><div id="moves"></div></section>' +
      '<div id="pos-root"></div><section class="panel log"><h3>Recent decisions</h3><ol id="log"></ol></section>';
    const view = new Position(document.getElementById("pos-root"), map, st.colours, st.names, null);
    document.querySelector("#pos-root .extra-slot").appendChild(document.querySelector("section.moves"));
    const errEl = document.getElementById("error");
    let busy = false;
    function showError(msg) { errEl.textContent = msg; errEl.hidden = !msg; }
    function render() {
      const t0 = performance.now();
      const legal = st.legal;
      view.render(st.frame, legal.filter((m) => m.space !== null).map((m) => m.space));
      view.charts.render(frames, frames.length - 1);
      document.getElementById("turn").innerHTML = st.frame.terminal ? "<b>Game over.</b> " +
        st.frame.scores.map((r, p) => esc(seatLabel(p, st.names)) + " " + r.total + " VP (rank " + r.rank + ")").join(", ") :
        st.your_turn ? "<b>Your turn</b> (seat " + st.human + "): choose a move below" + (legal.some((m) => m.space !== null) ?
          " or click a highlighted space on the map" : "") : "waiting for the bots";
      document.getElementById("moves").innerHTML = legal.map((m) => '<button class="move" data-action="' + m.action + '"' +
        (m.space !== null ? ' data-space="' + m.space + '"' : "") + ">" + esc(m.name) + (m.detail ? ' <span class="detail">' +
        esc(m.detail) + "</span>" : "") + "</button>").join("") || (st.frame.terminal ? "<i>the game is over</i>" : "");
      document.getElementById("log").innerHTML = st.log.slice().reverse().map((e) => "<li>" + swatch(st.colours[e.player]) +
        "#" + e.index + " " + esc(seatLabel(e.player, st.names)) + ": " + esc(e.text) + automaLinesHTML(e.automa) + "</li>").join("");
      document.getElementById("saved").innerHTML = st.saved_as ? 'saved: <a href="/replay?file=' + encodeURIComponent(st.saved_as) +
        '">' + esc(st.saved_as) + "</a>" : "";
      document.body.dataset.version = String(st.version);
      document.body.dataset.over = st.frame.terminal ? "1" : "0";
      record(t0);
      document.body.dataset.busy = "0";
    }
    async function send(path, body) {
      if (busy) return;
      busy = true; document.body.dataset.busy = "1";
      try {
        const next = await api("POST", "/api/games/" + encodeURIComponent(st.id) + path, body);
        showError("");
        if (next.undone !== undefined) frames.length = 0;
        st = Object.assign({}, st, next);
        frames.push(st.frame);
        render();
      } catch (e) {
        showError(e.message);
        if (e.status === 409) {
          try { st = Object.assign({}, st, await api("GET", "/api/games/" + encodeURIComponent(st.id))); frames.push(st.frame); } catch (e2) { /* keep */ }
        }
        render();
      } finally { busy = false; }
    }
    document.getElementById("moves").onclick = (ev) => {
      const b = ev.target.closest("button.move");
      if (b) send("/move", { action: parseInt(b.dataset.action, 10), version: st.version });
    };
    view.board.svg.addEventListener("click", (ev) => {
      const g = ev.target.closest(".space");
      if (!g) return;
      const m = st.legal.find((x) => x.space === parseInt(g.dataset.space, 10));
      if (m) send("/move", { action: m.action, version: st.version });
      else if (st.your_turn) showError("space " + g.dataset.space + " is not a legal choice now");
    });
    document.getElementById("undo").onclick = () => send("/undo", { version: st.version });
    document.getElementById("save").onclick = async () => {
      try { const r = await api("POST", "/api/games/" + encodeURIComponent(st.id) + "/save"); st.saved_as = r.file; showError(""); render(); }
      catch (e) { showError(e.message); }
    };
    render();
    window.clansPlay = { get state() { return st; } };
  }

  // ------------------------------------------------------------------------------ tournament page
  function tournamentPage(d) {
    const pct = (x) => (x === null || x === undefined ? "-" : (100 * x).toFixed(0) + "%");
    const num = (x, k) => (x === null || x === undefined ? "-" : Number(x).toFixed(k === undefined ? 1 : k));
    let s = "<h2>Tournament " + esc(d.file) + "</h2><div class=\"meta\">" + esc(d.mode) + " &middot; " + esc(d.num_players) +
      " players &middot; " + d.games.length + " games &middot; seed " + esc(d.seed) + "</div>";
    s += '<section class="panel"><h3>Ratings</h3><table class="standings"><tr><th>agent</th><th>spec</th><th>games</th><th>win rate (95% CI)</th>' +
      "<th>mean score (95% CI)</th><th>mean rank</th><th>mu</th><th>sigma</th><th>ordinal</th><th>ms/decision</th></tr>";
    for (const r of d.standings) {
      s += "<tr><td>" + esc(r.agent) + "</td><td>" + esc(r.spec) + "</td><td>" + esc(r.games) + "</td><td>" + pct(r.win_rate) + " (" +
        pct(r.win_rate_ci95 && r.win_rate_ci95[0]) + "-" + pct(r.win_rate_ci95 && r.win_rate_ci95[1]) + ")</td><td>" + num(r.mean_score) +
        " (" + num(r.mean_score_ci95 && r.mean_score_ci95[0]) + "-" + num(r.mean_score_ci95 && r.mean_score_ci95[1]) + ")</td><td>" +
        num(r.mean_rank, 2) + "</td><td>" + num(r.mu, 2) + "</td><td>" + num(r.sigma, 2) + "</td><td>" + num(r.ordinal, 2) + "</td><td>" +
        num(r.ms_per_decision, 2) + "</td></tr>";
    }
    s += "</table>";
    if (d.rating_history && d.rating_history.length && d.agents) {
      const palette = ["#d62728", "#1f5fd6", "#2ca02c", "#ff9a1f", "#9467bd", "#8c564b", "#e377c2", "#17becf"];
      const series = d.agents.map((a) => [25].concat(d.rating_history.map((h) => (h[a] ? h[a][0] : NaN))));
      s += lineChart("OpenSkill mu after each game", series, palette, d.agents, null, "game") +
        '<div class="legend">' + d.agents.map((a, k) => '<span class="seat">' + swatch(palette[k % palette.length]) + esc(a) + "</span>").join("") + "</div>";
    }
    if (d.plot && !STANDALONE) s += '<div><img class="ratings-plot" alt="ratings plot" src="/api/image?file=' + encodeURIComponent(d.plot) + '"></div>';
    s += '</section><section class="panel"><h3>Games</h3><table class="games"><tr><th>#</th><th>seats</th><th>scores</th><th>ranks</th><th>decisions</th><th></th></tr>';
    for (const g of d.games) {
      s += "<tr><td>" + esc(g.index) + "</td><td>" + esc((g.names || []).join(" vs ")) + "</td><td>" + esc((g.totals || []).join(" : ")) +
        "</td><td>" + esc((g.ranks || []).join(", ")) + "</td><td>" + esc(g.num_actions) + "</td><td>" +
        (g.replay ? '<a class="open" href="/replay?file=' + encodeURIComponent(g.replay) + '">watch</a>' : "-") + "</td></tr>";
    }
    app.innerHTML = s + "</table></section>";
  }

  // ------------------------------------------------------------------------------ home page
  async function homePage(d) {
    app.innerHTML = '<section class="panel" id="play"><h3>Play against bots</h3><form id="newgame">' +
      '<label>players <select name="players"><option>2</option><option>3</option><option>4</option><option value="1">1 (solo)</option></select></label> ' +
      '<label>your seat <input name="seat" type="number" min="0" max="3" value="0"></label> ' +
      '<label>opponents <input name="opponents" value="heuristic" size="30" title="agent specs separated by spaces: random, heuristic, mcts:sims=50"></label> ' +
      '<label>seed <input name="seed" type="number" min="0" value="0"></label> ' +
      '<label>clans <select name="clan_selection"><option value="">draft</option><option value="auction">auction</option><option value="none">without clans</option></select></label> ' +
      '<button type="submit" id="start">Start</button></form><div id="error" class="error" role="alert" hidden></div><div id="games"></div></section>' +
      '<section class="panel" id="tournaments"><h3>Tournaments</h3><div id="tlist">loading...</div></section>' +
      '<section class="panel" id="replays"><h3>Replays</h3><div class="meta">folders: ' + esc(d.folders.join(", ")) +
      '</div><div id="rlist">loading...</div></section>';
    const errEl = document.getElementById("error");
    document.getElementById("newgame").onsubmit = async (ev) => {
      ev.preventDefault();
      const f = ev.target;
      const body = { players: parseInt(f.players.value, 10), seat: parseInt(f.seat.value, 10),
        opponents: f.opponents.value.trim().split(/\s+/).filter(Boolean), seed: parseInt(f.seed.value, 10) || 0 };
      if (f.clan_selection.value) body.clan_selection = f.clan_selection.value;
      try { const g = await api("POST", "/api/games", body); location.href = "/play/" + encodeURIComponent(g.id); }
      catch (e) { errEl.textContent = e.message; errEl.hidden = false; }
    };
    try {
      const games = (await api("GET", "/api/games")).games;
      if (games.length) document.getElementById("games").innerHTML = "<h4>Games on this server</h4><ul>" + games.map((g) =>
        '<li><a href="/play/' + encodeURIComponent(g.id) + '">' + esc(g.names.join(" vs ")) + "</a> round " + g.round +
        (g.over ? " (over)" : "") + "</li>").join("") + "</ul>";
      const ts = (await api("GET", "/api/tournaments")).tournaments;
      document.getElementById("tlist").innerHTML = ts.length ? "<ul>" + ts.map((t) => '<li><a class="open" href="/tournament?file=' +
        encodeURIComponent(t.id) + '">' + esc(t.folder) + "</a> " + (t.error ? '<span class="error">' + esc(t.error) + "</span>" :
        esc((t.agents || []).join(", ")) + " &middot; " + esc(t.mode) + " &middot; " + esc(t.games) + " games") + "</li>").join("") + "</ul>" :
        "<i>no results.json in the served folders</i>";
      const rs = (await api("GET", "/api/replays")).replays;
      let s = '<table class="replays"><tr><th>file</th><th>players</th><th>clans</th><th>scores</th><th>decisions</th></tr>';
      for (const r of rs) {
        s += '<tr><td><a class="open" href="/replay?file=' + encodeURIComponent(r.id) + '">' + esc(r.id.replace(/^\d+\//, "")) + "</a></td>";
        if (r.error) s += '<td colspan="4" class="error">' + esc(r.error) + "</td></tr>";
        else s += "<td>" + r.names.map((n, p) => esc("P" + p + " " + n) + (r.agents && r.agents[p] && r.agents[p] !== n ? " [" + esc(r.agents[p]) + "]" : "")).join(", ") +
          "</td><td>" + esc(r.clans.map((c) => c || "-").join(", ")) + "</td><td>" + esc(r.scores.join(" : ")) + (r.finished ? "" : " (unfinished)") +
          "</td><td>" + r.decisions + "</td></tr>";
      }
      document.getElementById("rlist").innerHTML = rs.length ? s + "</table>" : "<i>no game files in the served folders</i>";
    } catch (e) { errEl.textContent = e.message; errEl.hidden = false; }
  }

  // ------------------------------------------------------------------------------ dispatch
  if (STANDALONE) for (const el of document.querySelectorAll(".servednav")) el.remove();
  try {
    if (PAGE === "replay") replayPage(DATA);
    else if (PAGE === "play") playPage(DATA);
    else if (PAGE === "tournament") tournamentPage(DATA);
    else if (PAGE === "home") homePage(DATA);
    else if (PAGE === "error") app.innerHTML = '<h2>Error</h2><p class="error" id="page-error">' + esc(DATA && DATA.error) + '</p><p><a href="/">back to the list</a></p>';
  } catch (e) {
    app.innerHTML = '<p class="error" id="page-error">This page could not be drawn: ' + esc(e.message) + "</p>";
    throw e;
  }
})();
