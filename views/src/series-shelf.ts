// Series shelf: get_series_progress's answer as a shelf per series: the
// books in order, each finished, in progress or not started, the numbers
// missing from the library (gaps) in their place, and the next book to
// listen to marked. what_next's answer: what is in progress, then each
// started series with the numbers missing before its next book and the
// next book marked.
import { type App } from "@modelcontextprotocol/ext-apps";
import { ask, el, hours, start, type Data } from "./common";

const label: Record<string, string> = { finished: "finished", in_progress: "in progress", not_started: "not started" };

start("Series shelf", (data: Data, app: App) => {
  if (Array.isArray(data.next_in_series) || Array.isArray(data.in_progress)) {
    whatNext(data, app);
    return;
  }
  const root = document.getElementById("root")!;
  const all: Data[] = Array.isArray(data.series) ? data.series : data.books ? [data] : [];
  const out: HTMLElement[] = [];
  if (all.length === 0) out.push(el("p", "note", "No series started."));
  for (const s of all) {
    const sec = el("section", "series");
    sec.dataset.id = String(s.series_id ?? "");
    sec.append(el("h1", "", String(s.name ?? "")));
    sec.append(el("div", "muted", `${s.finished ?? 0} finished · ${s.in_progress ?? 0} in progress · ${s.not_started ?? 0} not started${s.complete ? " · complete" : ""}`));
    const books: Data[] = s.books ?? [];
    const next = books.find((b) => b.state === "in_progress") ?? books.find((b) => b.state === "not_started");
    const gaps = new Set<string>((s.gaps ?? []).map(String));
    const list = el("ol", "shelf");
    const placed = new Set<string>();
    const gap = (g: string) => {
      const li = el("li", "book gap");
      li.append(el("span", "seq", `#${g}`), el("span", "t", "missing from the library"));
      list.append(li);
      placed.add(g);
    };
    for (const b of books) {
      const n = Number(b.sequence);
      for (const g of gaps) if (!placed.has(g) && Number(g) < n) gap(g);
      const li = el("li", `book ${b.state}`);
      li.dataset.id = String(b.library_item_id ?? "");
      li.dataset.state = String(b.state ?? "");
      li.append(el("span", "seq", b.sequence ? `#${b.sequence}` : "–"), el("span", "t", String(b.title ?? "")));
      let st = label[b.state] ?? String(b.state);
      if (b.state === "in_progress" && b.progress_pct !== undefined) st = `${b.progress_pct}%${b.left_s ? `, ${hours(b.left_s)} left` : ""}`;
      if (b.state === "finished" && b.finished_at) st = `finished ${b.finished_at}`;
      li.append(el("span", "st", st));
      if (b === next) {
        li.classList.add("next");
        li.append(el("span", "mark", "next"));
      }
      list.append(li);
    }
    for (const g of gaps) if (!placed.has(g)) gap(g);
    sec.append(list);
    if (next) {
      const btn = el("button", "", `Listen to ${next.title}`);
      btn.onclick = () => ask(app, `I want to listen to ${next.title} (${s.name} #${next.sequence ?? "?"}) next.`);
      sec.append(btn);
    }
    out.push(sec);
  }
  if (data.next_page !== undefined) out.push(el("p", "note", `More series on page ${data.next_page}.`));
  root.replaceChildren(...out);
});

// whatNext shows what_next's answer.
function whatNext(data: Data, app: App) {
  const root = document.getElementById("root")!;
  const out: HTMLElement[] = [];
  const now: Data[] = data.in_progress ?? [];
  if (now.length > 0) {
    out.push(el("h1", "", "In progress"));
    const list = el("ol", "shelf now");
    for (const b of now) {
      const li = el("li", "book in_progress");
      li.dataset.id = String(b.library_item_id ?? "");
      li.append(el("span", "t", String(b.episode ?? b.title ?? "")), el("span", "st", `${b.progress_pct ?? 0}%${b.left_s ? `, ${hours(b.left_s)} left` : ""}`));
      list.append(li);
    }
    out.push(list);
  }
  for (const s of data.next_in_series ?? []) {
    const sec = el("section", "series");
    sec.dataset.id = String(s.series_id ?? "");
    sec.append(el("h1", "", String(s.series ?? "")));
    sec.append(el("div", "muted", `${s.finished ?? 0} of ${s.books ?? "?"} finished${s.complete ? " · complete" : ""}${s.status ? ` · ${s.status}` : ""}`));
    const list = el("ol", "shelf");
    for (const g of s.gap_before ?? []) {
      const li = el("li", "book gap");
      li.append(el("span", "seq", `#${g}`), el("span", "t", "missing from the library"));
      list.append(li);
    }
    const n = s.next;
    if (n) {
      const li = el("li", `book ${n.state ?? "not_started"} next`);
      li.dataset.id = String(n.library_item_id ?? "");
      li.dataset.state = String(n.state ?? "");
      li.append(el("span", "seq", n.sequence ? `#${n.sequence}` : "–"), el("span", "t", String(n.title ?? "")), el("span", "st", n.duration_s ? hours(n.duration_s) : ""), el("span", "mark", "next"));
      list.append(li);
    }
    sec.append(list);
    if (n) {
      const btn = el("button", "", `Listen to ${n.title}`);
      btn.onclick = () => ask(app, `I want to listen to ${n.title} (${s.series} #${n.sequence ?? "?"}) next.`);
      sec.append(btn);
    }
    out.push(sec);
  }
  if (out.length === 0) out.push(el("p", "note", "Nothing in progress and no series started."));
  if (data.next_page !== undefined) out.push(el("p", "note", `More series on page ${data.next_page}.`));
  root.replaceChildren(...out);
}
