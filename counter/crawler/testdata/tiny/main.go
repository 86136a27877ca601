// Command tiny links package crawler and nothing else of the module, so
// that TestNoInit can look at what its start-up runs.
package main

import (
	"os"

	"hitcounter/counter/crawler"
)

func main() {
	if len(os.Args) > 1 && crawler.IsCrawler(os.Args[1]) {
		os.Exit(1)
	}
}
