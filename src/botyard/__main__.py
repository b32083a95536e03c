from botyard.cli import main

main()
