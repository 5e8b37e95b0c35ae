// Now listening: list_items_in_progress's answer as cards: cover, title,
// author, series and place, a progress bar with the time left, when last
// listened, and a button that asks to go on with the series.
import { type App } from "@modelcontextprotocol/ext-apps";
import { ask, cover, day, el, hours, start, type Data } from "./common";

start("Now listening", (data: Data, app: App) => {
  const root = document.getElementById("root")!;
  if (!Array.isArray(data.items)) {
    root.replaceChildren(el("p", "note", "This answer (detail full) has no view: its text is Audiobookshelf's own."));
    return;
  }
  const items: Data[] = data.items;
  const out: HTMLElement[] = [el("h1", "", "Now listening")];
  if (items.length === 0) out.push(el("p", "note", "Nothing in progress."));
  for (const it of items) {
    const card = el("article", "card");
    card.dataset.id = String(it.id ?? "");
    const img = el("img", "cover");
    img.alt = "";
    img.width = 64;
    img.height = 64;
    cover(app, img, String(it.id));
    const body = el("div", "body");
    const ep = it.episode;
    body.append(el("div", "title", String(ep?.title ?? it.title ?? "")));
    const by = [ep ? it.title : "", it.authors].filter(Boolean).join(" · ");
    if (by) body.append(el("div", "muted by", by));
    for (const s of it.series ?? []) {
      body.append(el("div", "muted series", s.sequence ? `${s.name} #${s.sequence}` : String(s.name)));
    }
    const p = it.progress ?? {};
    const pct = Math.max(0, Math.min(100, Number(p.progress_pct ?? 0)));
    const dur = Number(ep?.duration_s ?? it.duration_s ?? 0);
    const bar = el("div", "bar");
    bar.setAttribute("role", "progressbar");
    bar.setAttribute("aria-valuenow", String(pct));
    const fill = el("span");
    fill.style.width = `${pct}%`;
    bar.append(fill);
    body.append(bar);
    const left = dur > 0 ? `${hours(dur - Number(p.current_time_s ?? 0))} left` : "";
    body.append(el("div", "muted place", [`${pct}%`, left, p.last_update ? `last listened ${day(p.last_update)}` : ""].filter(Boolean).join(" · ")));
    const next = (it.series ?? []).find((s: Data) => s.next)?.next;
    const seriesName = (it.series ?? [])[0]?.name;
    if (seriesName) {
      const b = el("button", "", next ? `After this: ${next.title}` : "What is next in this series?");
      b.onclick = () => ask(app, `What is next in the series ${seriesName} after ${it.title}?`);
      body.append(b);
    }
    card.append(img, body);
    out.push(card);
  }
  if (data.next_page !== undefined) out.push(el("p", "note", `More on page ${data.next_page} (${data.total} in all).`));
  root.replaceChildren(...out);
});
