.PHONY: test lint check site serve bench schemas

test:  ## what CI runs
	bash .ci/run

lint:
	ruff check src tests bench
	ruff format --check src tests bench
	mypy

check:
	sourcebook check examples/compute-race

serve:
	sourcebook serve examples/compute-race

bench:
	python bench/bench_check.py

schemas:
	sourcebook schema --out schemas
