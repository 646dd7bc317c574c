"""The modelled paper's headline, recomputed from a sweep of its configuration space: how much faster gradient
computation gets on functions than on the peers alone, and at what cost ratio, over every feasible configuration of
`experiments/paper_reproduction.xml` (docs/accuracy.md, "The modelled paper's headline").

    ./build/p2psim sweep experiments/paper_reproduction.xml --out /tmp/paper
    /usr/bin/python3 notebooks/p2psim_paper_headline.py /tmp/paper      # prints the table and the per-model medians
    ... --record validation/paper_headline.json    # writes the numbers README.md and docs/accuracy.md quote
    ... --check validation/paper_headline.json     # exit 1 if the sweep no longer gives them (a ctest test)

"Where" is the configuration of the largest value; among those within 0.05 points of it, the cheapest (the paper
reports its largest improvement, and several configurations reach it within rounding)."""
import argparse
import json
import sys

from p2psim_tables import ResultsError, load_results

SYSTEMS = {"serverless": "trainer (`model_fetch=\"storage\"`)", "prototype": "prototype (`model_fetch=\"none\"`)"}
MEASURES = {"gradient_improvement_vs_baseline_percent": "p2psim's gradient",
            "paper_gradient_improvement_vs_baseline_percent": "the paper's timer"}
TIE_POINTS = 0.05
WHERE = ["model", "peers", "instance_type", "function_memory_mb", "workload/@batch_size"]


def load(path):
    """The sweep's table (p2psim_tables.load_results: its folder or its CSV), refused unless it holds the paper's
    serverless systems and the columns this reads."""
    df = load_results(path)
    needed = {"system", "status", "total_usd", "cost_ratio_vs_baseline", *MEASURES, *WHERE}
    missing = sorted(needed - set(df.columns))
    if missing:
        raise ResultsError(f"{path}: not a sweep of the paper's systems (missing columns {', '.join(missing)})")
    if not set(SYSTEMS) <= set(df["system"]):
        raise ResultsError(f"{path}: no rows of system(s) {', '.join(sorted(set(SYSTEMS) - set(df['system'])))}")
    return df


def where(row):
    return (f"{row['model']}, {row['peers']} {row['instance_type']} peers, {row['function_memory_mb']} MB, "
            f"batch {row['workload/@batch_size']}")


def largest(rows, column):
    """The row of the largest value of `column`; among rows within TIE_POINTS of it (a ratio: of its value), the
    cheapest."""
    top = rows[column].max()
    near = rows[rows[column] >= top - (TIE_POINTS if column.endswith("_percent") else TIE_POINTS / 100 * top)]
    return near.sort_values(["total_usd"] + WHERE, kind="stable").iloc[0]


def headline(df):
    """One dict per (system, measure): the largest improvement and where, the pooled median, and for p2psim's own
    measure the largest cost ratio and where, its median and the cost ratio at the largest improvement."""
    ok = df[df["status"] == "ok"]
    out = []
    for system in SYSTEMS:
        rows = ok[ok["system"] == system]
        for measure in MEASURES:
            best = largest(rows, measure)
            entry = {"system": system, "measure": measure, "largest": best[measure], "where": where(best),
                     "median": rows[measure].median()}
            if measure == "gradient_improvement_vs_baseline_percent":
                dearest = largest(rows, "cost_ratio_vs_baseline")
                entry.update(largest_cost_ratio=dearest["cost_ratio_vs_baseline"], cost_where=where(dearest),
                             median_cost_ratio=rows["cost_ratio_vs_baseline"].median(),
                             cost_ratio_at_largest=best["cost_ratio_vs_baseline"])
            out.append(entry)
    return out


def per_model_medians(df):
    """{(system, measure): {model: median improvement}} over the feasible configurations."""
    ok = df[df["status"] == "ok"]
    return {(s, m): ok[ok["system"] == s].groupby("model")[m].median().to_dict() for s in SYSTEMS for m in MEASURES}


def per_model_best(df, system, measure):
    """{model: (largest improvement, where)} over the feasible configurations, ties as largest()."""
    ok = df[(df["status"] == "ok") & (df["system"] == system)]
    return {model: (row[measure], where(row)) for model, rows in ok.groupby("model")
            for row in [largest(rows, measure)]}


def at(df, **config):
    """{system: row} of the configuration `config` (WHERE's columns), feasible or not."""
    rows = df
    for column, value in config.items():
        rows = rows[rows[column] == value]
    return {r["system"]: r for _, r in rows.iterrows()}


# The configuration the modelled code's S3 folders suggest (docs/accuracy.md, "The modelled paper's headline").
CODE_CONFIG = {"model": "vgg11", "peers": 12, "workload/@batch_size": 1024, "function_memory_mb": 3008,
               "instance_type": "t2.large"}


def markdown(df):
    lines = ["| serverless system | metric | largest improvement (where) | median | largest cost ratio (where) | "
             "median | cost ratio at the largest improvement |", "|---|---|---|---|---|---|---|"]
    for e in headline(df):
        cost = (f"{e['largest_cost_ratio']:.1f}x ({e['cost_where']}) | {e['median_cost_ratio']:.1f}x | "
                f"{e['cost_ratio_at_largest']:.2f}x" if "largest_cost_ratio" in e else " | |")
        lines.append(f"| {SYSTEMS[e['system']]} | {MEASURES[e['measure']]} | {e['largest']:.1f} % ({e['where']}) | "
                     f"{e['median']:.1f} % (pooled) | {cost} |")
    lines.append("")
    for (system, measure), medians in per_model_medians(df).items():
        lines.append(f"median improvement, {system}, {MEASURES[measure]}: " +
                     ", ".join(f"{model} {value:+.1f} %" for model, value in sorted(medians.items())))
    for system in SYSTEMS:
        best = per_model_best(df, system, "paper_gradient_improvement_vs_baseline_percent")
        lines.append(f"best under the paper's timer, {system}: " +
                     "; ".join(f"{model} {value:.1f} % ({place})" for model, (value, place) in sorted(best.items())))
    for system, row in at(df, **CODE_CONFIG).items():
        if system in SYSTEMS:
            lines.append(f"at {where(row)} ({system}): {MEASURES[next(iter(MEASURES))]} "
                         f"{row['gradient_improvement_vs_baseline_percent']:+.1f} %, the paper's timer "
                         f"{row['paper_gradient_improvement_vs_baseline_percent']:+.1f} %, cost "
                         f"{row['cost_ratio_vs_baseline']:.2f}x")
    ok = df[(df["status"] == "ok") & df["system"].isin(list(SYSTEMS))]
    lines.append(f"cost ratios over the space: {ok['cost_ratio_vs_baseline'].min():.2f}x to "
                 f"{ok['cost_ratio_vs_baseline'].max():.1f}x; {int((df['status'] != 'ok').sum())} of {len(df)} rows "
                 "infeasible")
    return "\n".join(lines)


def record(df):
    """The numbers the documents quote, rounded as they print them (percentages and cost ratios to 0.1, the cost
    ratio at the largest improvement and the smallest cost ratio to 0.01):
    a change of the model that moves one of them shows as a changed record, not as a stale sentence."""
    ok = df[(df["status"] == "ok") & df["system"].isin(list(SYSTEMS))]
    rounded = {"largest": 1, "median": 1, "largest_cost_ratio": 1, "median_cost_ratio": 1, "cost_ratio_at_largest": 2}
    return {
        "headline": [{k: round(float(v), rounded[k]) if k in rounded else v for k, v in e.items()} for e in headline(df)],
        "medians_by_model": {f"{s}/{m}": {model: round(float(v), 1) for model, v in sorted(medians.items())}
                                     for (s, m), medians in per_model_medians(df).items()},
        "cost_ratio_min": round(float(ok["cost_ratio_vs_baseline"].min()), 2),
        "cost_ratio_max": round(float(ok["cost_ratio_vs_baseline"].max()), 1),
        "rows": len(df), "rows_infeasible": int((df["status"] != "ok").sum()),
    }


def differences(recorded, current, path=""):
    """Where two records differ, one line each."""
    if isinstance(recorded, dict) and isinstance(current, dict):
        return [line for key in sorted(set(recorded) | set(current))
                for line in differences(recorded.get(key), current.get(key), f"{path}/{key}")]
    if isinstance(recorded, list) and isinstance(current, list) and len(recorded) == len(current):
        return [line for i, (a, b) in enumerate(zip(recorded, current)) for line in differences(a, b, f"{path}[{i}]")]
    return [] if recorded == current else [f"{path}: recorded {recorded!r}, now {current!r}"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", help="the sweep's folder or its results.csv")
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--record", metavar="FILE", help="write the numbers the documents quote to FILE (JSON)")
    action.add_argument("--check", metavar="FILE", help="exit 1 unless the sweep gives FILE's numbers")
    args = parser.parse_args(argv)
    try:
        df = load(args.results)
        if args.check:
            with open(args.check, encoding="utf-8") as f:
                recorded = json.load(f)
            changed = differences(recorded, record(df))
            if changed:
                print(f"p2psim_paper_headline: the paper's headline is no longer {args.check}'s "
                      f"(re-run with --record and update README.md and docs/accuracy.md):", file=sys.stderr)
                print("\n".join(changed), file=sys.stderr)
                return 1
            print(f"the paper's headline is {args.check}'s")
            return 0
        if args.record:
            with open(args.record, "w", encoding="utf-8") as f:
                json.dump(record(df), f, indent=1, ensure_ascii=False)
                f.write("\n")
        print(markdown(df))
    except ResultsError as e:
        print(f"p2psim_paper_headline: error: {e}", file=sys.stderr)
        return 2
    except (OSError, json.JSONDecodeError) as e:
        print(f"p2psim_paper_headline: error: {args.check or args.record}: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
