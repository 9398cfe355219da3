from sanitizer.cli.command import main

main()
