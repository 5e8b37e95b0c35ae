// Listening over time: get_listening_by_period's answer as a bar chart of
// the time listened per day, week or month, the totals, and the books
// finished in the range with their titles and dates; get_listening_year's
// the same by month (by_month), with the year's count of books finished.
import { type App } from "@modelcontextprotocol/ext-apps";
import { day, el, hours, start, type Data } from "./common";

start("Listening over time", (data: Data, _app: App) => {
  const root = document.getElementById("root")!;
  const year = data.year !== undefined && Array.isArray(data.by_month);
  const periods: Data[] = Array.isArray(data.periods) ? data.periods : year ? data.by_month : [];
  const title = year ? `Listening in ${data.year}, by month` : `Listening ${data.from ?? ""} to ${data.to ?? ""}, by ${data.by ?? "month"}`;
  const count = year ? data.counts?.books_finished : data.finished_count;
  const out: HTMLElement[] = [el("h1", "", title)];
  out.push(el("div", "muted total", `${hours(Number(data.total_s ?? 0))} in all · ${count ?? (data.finished ?? []).length} finished`));
  const max = Math.max(1, ...periods.map((p) => Number(p.time_s ?? 0)));
  const chart = el("div", "chart");
  chart.setAttribute("role", "img");
  for (const p of periods) {
    const t = Number(p.time_s ?? 0);
    const col = el("div", "col");
    col.dataset.period = String(p.period);
    col.dataset.seconds = String(t);
    col.title = `${p.period}: ${hours(t)}`;
    const bar = el("div", "b");
    bar.style.height = `${(t / max) * 100}%`;
    col.append(el("div", "v", t > 0 ? String(Math.round(t / 360) / 10) : ""), el("div", "slot"), el("div", "p", String(p.period)));
    col.querySelector(".slot")!.append(bar);
    chart.append(col);
  }
  out.push(chart, el("div", "muted", "hours per period"));
  const fin: Data[] = Array.isArray(data.finished) ? data.finished : [];
  if (fin.length > 0) {
    out.push(el("h1", "fin-h", "Finished"));
    const ul = el("ul", "fin");
    for (const f of fin) {
      const li = el("li");
      li.dataset.id = String(f.library_item_id ?? "");
      // An episode by its own title, its podcast's beside it.
      const name = f.episode ? `${f.episode} (${f.title ?? ""})` : String(f.title ?? f.library_item_id ?? "");
      li.append(el("span", "t", name), el("span", "muted", day(f.finished)));
      ul.append(li);
    }
    out.push(ul);
  }
  if (data.next_page !== undefined) out.push(el("p", "note", `More ${year ? "finished books" : "periods"} on page ${data.next_page}.`));
  root.replaceChildren(...out);
});
