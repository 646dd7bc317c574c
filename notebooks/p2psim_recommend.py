"""`p2psim recommend`: the cheapest configuration within a deadline, or the fastest within a budget, per
workload, with runners-up that are real alternatives (never the same or worse in both time and cost than one
already listed), optionally weighed by time and cost to a test accuracy."""
import math
import os
import sys

import p2psim_accuracy
import p2psim_labels as labels
import p2psim_validation
from p2psim_tables import (COST, TIME, ResultsError, apply_where, best_accuracy, config_axes, facets, failed_scenarios,
                           feasible, load_results, to_target, workload_of)

# Exit codes: an answer for at least one workload; bad input; no workload has an answer.
ANSWERED, BAD_INPUT, UNANSWERED = 0, 2, 3


def check_limits(deadline_s=None, budget_usd=None, runners_up=3, target_accuracy=None):
    """Every limit a number that means something, or one clear ResultsError (exit code 2)."""
    for name, value in (("--deadline-s", deadline_s), ("--budget-usd", budget_usd)):
        # An infinite limit ("inf", "1e400") would admit every configuration: not a limit.
        if value is not None and (not math.isfinite(value) or value < 0):
            raise ResultsError(f"{name} {value:g}: expected a finite number >= 0")
    if runners_up < 0:
        raise ResultsError(f"--runners-up {runners_up}: expected a count >= 0")
    if target_accuracy is not None and (math.isnan(target_accuracy) or not 0 < target_accuracy <= 1):
        raise ResultsError(f"--target-accuracy {target_accuracy:g}: expected a test accuracy in (0, 1], "
                           f"e.g. 0.85 for 85 %")


def recommend(df, deadline_s=None, budget_usd=None, runners_up=3):
    """The cheapest row within the deadline, or the fastest within the budget, and the next runners-up: rows
    that no row already listed for the same workload matches or beats in both time and cost.

    Returns (best_row_or_None, runners_up_dataframe, slack_column_name). Each row gains a `slack` column:
    seconds left before the deadline, or dollars left in the budget.
    """
    if (deadline_s is None) == (budget_usd is None):
        raise ValueError("give exactly one of a deadline and a budget")
    df = feasible(df).copy()  # an infeasible configuration is never proposed
    if deadline_s is not None:
        df["slack_s"] = deadline_s - df[TIME]
        ok = df[df[TIME] <= deadline_s].sort_values([COST, TIME], kind="mergesort")
        slack = "slack_s"
    else:
        df["slack_usd"] = budget_usd - df[COST]
        ok = df[df[COST] <= budget_usd].sort_values([TIME, COST], kind="mergesort")
        slack = "slack_usd"
    ok = ok[undominated(ok)]
    if ok.empty:
        return None, ok, slack
    return ok.iloc[0], ok.iloc[1:1 + runners_up], slack


def undominated(ordered):
    """Per row, in order: True when no earlier listed row of the same workload matches or beats it in both time
    and cost (e.g. the same run at a larger function memory, which only costs more)."""
    listed = {}
    kept = []
    for workload, time, cost in zip(workload_of(ordered), ordered[TIME], ordered[COST]):
        new = not any(t <= time and c <= cost for t, c in listed.get(workload, []))
        if new:
            listed.setdefault(workload, []).append((time, cost))
        kept.append(new)
    return kept


def recommend_command(results_dir, deadline_s, budget_usd, runners_up=3, where=None, target_accuracy=None):
    """Prints an answer per workload; returns the exit code (UNANSWERED only when no workload has one)."""
    check_limits(deadline_s, budget_usd, runners_up, target_accuracy)
    df = apply_where(load_results(results_dir), where)
    curves = None
    if target_accuracy is not None:
        try:
            curves = p2psim_accuracy.load_curves(results_dir) if os.path.isdir(results_dir) else None
        except p2psim_accuracy.AccuracyError as e:
            raise ResultsError(str(e)) from e
    columns = ["system"] + config_axes(df)
    if os.path.isdir(results_dir):
        print_failed(results_dir)
    panels = facets(df)  # like with like: one answer per workload
    answered = 0
    for label, rows in panels:
        if len(panels) > 1:
            print(f"== workload {label} (narrow with --where, e.g. --where model={rows['model'].iloc[0]})"
                  if "model" in rows.columns else f"== workload {label}")
        if target_accuracy is not None:
            reached = to_target(rows, target_accuracy, curves)
            print(f"time and cost to {target_accuracy:g} test accuracy; {len(rows) - len(reached)} of {len(rows)} "
                  f"rows never reached it")
            if reached.empty:
                print_best_reached(rows, curves, target_accuracy, columns)
                continue
            rows = reached
        else:
            warn_if_accuracies_differ(rows)
        answered += recommend_one(rows, deadline_s, budget_usd, runners_up, columns)
    return ANSWERED if answered else UNANSWERED


def print_failed(results_dir, shown=3):
    """Scenarios of the sweep that failed are in no row: an answer must not read as if they had been weighed."""
    failures = failed_scenarios(results_dir)
    if not failures:
        return
    print(f"not considered: {len(failures)} scenario(s) of this sweep failed ({os.path.join(results_dir, 'failed')}):")
    for axes, why in failures[:shown]:
        print(f"  {axes}: {why}")
    if len(failures) > shown:
        print(f"  and {len(failures) - shown} more")


def print_best_reached(rows, curves, target_accuracy, columns):
    best = best_accuracy(rows, curves)
    if best is None:
        print(f"no configuration reaches {target_accuracy:g} test accuracy")
    else:
        accuracy, row = best
        print(f"no configuration reaches {target_accuracy:g} test accuracy; the best reached {accuracy:.4g} "
              f"({labels.config_label(row, columns)})")


def warn_if_accuracies_differ(rows):
    """Time and cost of runs that end at different accuracies are not like for like: say so (stderr)."""
    if "final_test_accuracy" not in rows.columns:
        return
    accuracies = feasible(rows)["final_test_accuracy"].dropna()
    if len(accuracies) and accuracies.max() - accuracies.min() > 1e-9:
        print(f"warning: these configurations end at different test accuracies ({accuracies.min():.4g} to "
              f"{accuracies.max():.4g}); weigh time and cost to one accuracy with --target-accuracy",
              file=sys.stderr)


def recommend_one(df, deadline_s, budget_usd, runners_up, columns):
    """Prints one workload's answer; returns 1 when it has one, else 0 (and says why not)."""
    best, others, slack = recommend(df, deadline_s, budget_usd, runners_up)
    if best is None:
        ok = feasible(df)
        if ok.empty:
            print("no configuration is feasible (every one ran out of memory or failed)")
        elif deadline_s is not None:
            fastest = ok.loc[ok[TIME].idxmin()]
            print(f"no configuration meets the deadline of {deadline_s:g} s; the fastest takes {fastest[TIME]:.1f} s "
                  f"({labels.config_label(fastest, columns)})")
        else:
            cheapest = ok.loc[ok[COST].idxmin()]
            print(f"no configuration fits the budget of {budget_usd:g} USD; the cheapest costs "
                  f"{cheapest[COST]:.6f} USD ({labels.config_label(cheapest, columns)})")
        return 0
    unit = "s before the deadline" if slack == "slack_s" else "USD left in the budget"
    goal = "cheapest within the deadline" if deadline_s is not None else "fastest within the budget"
    for rank, (_, row) in enumerate([(None, best)] + list(others.iterrows()), start=1):
        head = goal if rank == 1 else f"#{rank}"
        scenario = f" (scenario {row['scenario_id']})" if not labels.is_missing(row.get("scenario_id")) else ""
        left = f"{row[slack]:.1f}" if slack == "slack_s" else f"{row[slack]:.4g}"
        print(f"{head}: {row[TIME]:.1f} s, {row[COST]:.6f} USD, {left} {unit}\n"
              f"  {labels.config_label(row, columns)}{scenario}")
    print_record_band(best[TIME], deadline_s, best[COST], budget_usd)
    if "strategy" in df.columns:
        print_design_accuracy(list(dict.fromkeys([best["strategy"]] + list(others["strategy"]))),
                              p2psim_validation.mechanisms_by_design(df))
    return 1


def print_record_band(time_s, deadline_s, cost_usd=None, budget_usd=None):
    """What a real run of the answer could take by p2psim's record on measured runs, and whether a deadline holds
    at the band's long end: a deadline met by the prediction alone may not be met by the run. With a budget, what
    the long end would cost were the cost to grow with the time (the record holds time errors: the cost cases are
    one study's estimates), and whether the budget holds there."""
    try:
        rec = p2psim_validation.record()
    except p2psim_validation.ValidationError as e:
        raise ResultsError(str(e)) from e
    if not rec:
        return
    short, long = p2psim_validation.record_band(time_s, rec)
    verdict = ""
    if deadline_s is not None:
        verdict = (f"; the deadline of {deadline_s:g} s holds at its long end" if long <= deadline_s else
                   f"; its long end is past the deadline of {deadline_s:g} s")
    elif budget_usd is not None and cost_usd is not None:
        long_usd = cost_usd * long / time_s
        verdict = (f"; were its cost to grow with its time, the long end would cost {long_usd:.4g} USD, "
                   + (f"within the budget of {budget_usd:g} USD" if long_usd <= budget_usd else
                      f"over the budget of {budget_usd:g} USD"))
    print(f"by p2psim's record a real run of the answer could take {short:.1f} to {long:.1f} s{verdict} "
          f"({p2psim_validation.record_text(rec)})")


def print_design_accuracy(strategies, mechanisms=None):
    """How far the answers' designs have been from measured runs: a deadline met by a design predicted fast
    in most of its measurements leaves less slack than it shows. Under a design never measured whole, each
    mechanism its runs used (`mechanisms`: {strategy: names}), measured alone."""
    try:
        table = p2psim_validation.design_accuracy(strategies, mechanisms=mechanisms)
    except p2psim_validation.ValidationError as e:
        raise ResultsError(str(e)) from e
    print("how far these designs have been from measured runs (p2psim validate; docs/accuracy.md):")
    for (design, mechanism), rows in table.groupby(["design", "mechanism"], sort=False):
        parts = []
        for _, r in rows.iterrows():
            words = [r["measured"]]
            if r["median |error|"]:  # as `p2psim run` says it
                words += [f"median |error| {r['median |error|']} (worst {r['worst |error|']})", r["p2psim vs measured"]]
            if r["errors p10 to p90"]:
                words += [f"errors p10 to p90 {r['errors p10 to p90']}"]
            parts.append(", ".join(words))
        print(f"  {'  ' + mechanism if mechanism else design}: {'; '.join(parts)}")
