"""The postgres search backend's SQL: its tables (`schema`), their one writer (`sync`), and the statements a search
runs (`ranking`, `lexicon`)."""
