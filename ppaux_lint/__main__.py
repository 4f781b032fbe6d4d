from ppaux_lint.cli import main

main()
