"""What a campus is on the database's day, defined once as views of the compiled record.

A campus's stage, its evidenced power and its chips are each one view here; the
scorecard, the tests, the charts, the machine, the record at a glance and every page read
these, never a definition of their own, so that every page that shows a number for a
campus shows the same one. docs/database.md documents them. They read `figures`, which
holds only the figures that count on the database's day (corrected and unreliable ones
are in `retired_figures`), so a retired figure counts in none of them.

- `stages`: the stages in order (1 announced, 2 under construction, 3 operating,
  4 cancelled); a planned figure announces.
- `phase_stages`: each phase of each campus, the days its stage moved, and the figure that
  moved it. A phase's stage is the furthest any of its figures has reached by the day (an
  announcement from the day it was known; the others from the last day their `as_of` can
  mean, so that "operating in 2024" shows it running by the end of 2024, no earlier): a
  later figure about a plan never moves a running phase back.
- `campus_stages`: the same for the campus as a whole: its furthest phase, cancelled only
  where every phase is.
- `campus_stage`: each campus's stage on the database's day, and since when as the figure
  that moved it says (announced from the day the campus is known, where no figure of it
  has a stage).
- `campus_power`: each campus's evidenced operating power: its latest operating figure of
  the power it draws (IT power, facility power or grid supply; not batteries or backup)
  graded documented, observed or reported (latest by the last day its
  `as_of` can mean, then the first; then the better grade, the larger value, the earlier
  place in its list).
- `campus_power_steps`: the same on each day it changed, by the time figures describe.
- `campus_chips`: each campus's chips running, chosen as its power is: one figure, so the
  same chips are never counted twice under two dates or two names.
"""

from __future__ import annotations

_EVIDENCED_RUNNING = (
    "campus IS NOT NULL AND status = 'operating' AND evidenced = 1 AND base_value IS NOT NULL"
)


def _latest(table: str = "") -> str:
    """The order in which a campus's figures stand for it: the first is its latest."""
    at = f"{table}." if table else ""
    return (
        f"{at}as_of_end DESC, {at}as_of_start DESC, {at}grade_rank, {at}base_value DESC, "
        f"{at}position, {at}id"
    )


MEANINGS = f"""
CREATE VIEW stages (rank, stage) AS
VALUES (1, 'announced'), (2, 'under construction'), (3, 'operating'), (4, 'cancelled');

CREATE VIEW phase_stages AS
WITH staged AS (
  SELECT campus, COALESCE(phase, '') AS phase, id AS figure, as_of,
    CASE WHEN status IN ('announced', 'planned') AND known_from < as_of_end
      THEN known_from ELSE as_of_end END AS day,
    CASE status WHEN 'announced' THEN 1 WHEN 'planned' THEN 1
      WHEN 'under construction' THEN 2 WHEN 'operating' THEN 3 WHEN 'cancelled' THEN 4 END
      AS rank
  FROM figures
  WHERE campus IS NOT NULL
    AND status IN ('announced', 'planned', 'under construction', 'operating', 'cancelled')),
daily AS (
  SELECT campus, phase, day, rank, figure, as_of FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY campus, phase, day ORDER BY rank DESC, figure)
      AS n FROM staged)
  WHERE n = 1),
reached AS (
  SELECT *, MAX(rank) OVER (
    PARTITION BY campus, phase ORDER BY day ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
    AS before
  FROM daily)
SELECT campus, phase, day, rank, figure, as_of FROM reached
WHERE before IS NULL OR rank > before;

CREATE VIEW campus_stages AS
WITH days AS (SELECT DISTINCT campus, day FROM phase_stages),
at AS (
  SELECT d.campus, d.day, p.phase, p.rank, p.figure, p.as_of, ROW_NUMBER() OVER (
    PARTITION BY d.campus, d.day, p.phase ORDER BY p.day DESC) AS n
  FROM days d JOIN phase_stages p ON p.campus = d.campus AND p.day <= d.day),
furthest AS (
  SELECT campus, day, phase, rank, figure, as_of FROM (
    SELECT *, ROW_NUMBER() OVER (
      PARTITION BY campus, day ORDER BY rank = 4, rank DESC, phase) AS m
    FROM at WHERE n = 1)
  WHERE m = 1),
moved AS (SELECT *, LAG(rank) OVER (PARTITION BY campus ORDER BY day) AS was FROM furthest)
SELECT m.campus, m.day, s.stage, m.rank, m.figure, m.as_of, NULLIF(m.phase, '') AS phase
FROM moved m JOIN stages s ON s.rank = m.rank
WHERE m.was IS NULL OR m.was <> m.rank;

CREATE VIEW campus_stage AS
SELECT c.id AS campus, COALESCE(s.stage, 'announced') AS stage, COALESCE(s.rank, 1) AS rank,
  COALESCE(s.as_of, c.known_from) AS since, s.day, s.figure, s.phase
FROM campuses c LEFT JOIN (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY campus ORDER BY day DESC) AS n FROM campus_stages
) s ON s.campus = c.id AND s.n = 1;

CREATE VIEW campus_power AS
SELECT campus, id AS figure, base_value AS watts, metric, as_of, as_of_start, as_of_end, grade
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY campus ORDER BY {_latest()}) AS n
  FROM figures
  WHERE {_EVIDENCED_RUNNING} AND metric IN ('it-power', 'facility-power', 'grid-supply'))
WHERE n = 1;

CREATE VIEW campus_power_steps AS
WITH running AS (
  SELECT * FROM figures
  WHERE {_EVIDENCED_RUNNING} AND metric IN ('it-power', 'facility-power', 'grid-supply')),
days AS (SELECT DISTINCT campus, as_of_start AS day FROM running),
at AS (
  SELECT d.campus, d.day, r.id AS figure, r.base_value AS watts, ROW_NUMBER() OVER (
    PARTITION BY d.campus, d.day ORDER BY {_latest("r")}) AS n
  FROM days d JOIN running r ON r.campus = d.campus AND r.as_of_start <= d.day)
SELECT campus, day, figure, watts FROM at WHERE n = 1;

CREATE VIEW campus_chips AS
SELECT campus, id AS figure, base_value AS chips, chip, as_of, as_of_start, as_of_end, grade
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY campus ORDER BY {_latest()})
    AS n
  FROM figures
  WHERE {_EVIDENCED_RUNNING} AND dimension = 'chips')
WHERE n = 1;
"""
