# The two commands of README.md. Both install their own dependencies (apt-get, as root).
PRESET ?= release
BUILD_DIR := build/$(PRESET)
JOBS ?= $(shell nproc)
HOST ?= 127.0.0.1
PORT ?= 1933
DATA ?= ./skald-data

.PHONY: deps build serve test clean

deps:
	./scripts/install-deps.sh

build: deps
	cmake --preset $(PRESET)
	cmake --build $(BUILD_DIR) -j $(JOBS)

serve: build
	$(BUILD_DIR)/skald serve --host $(HOST) --port $(PORT) --data $(DATA)

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

clean:
	rm -rf build
