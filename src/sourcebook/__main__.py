from sourcebook.cli import run

run()
