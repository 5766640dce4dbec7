from sourcebook.cli import main

main()
