# The two commands of README.md. Both install their own dependencies (apt-get, as root).
PRESET ?= release
BUILD_DIR := build/$(PRESET)
JOBS ?= $(shell nproc)
HOST ?= 127.0.0.1
PORT ?= 1933
DATA ?= ./skald-data

.PHONY: deps configure build serve test clean

deps:
	./scripts/install-deps.sh

configure: deps
	cmake --preset $(PRESET)

# Everything: the binary, every test and every benchmark.
build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# Serving needs only the binary, so a first start does not wait for the test suite to compile.
serve: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target skald
	$(BUILD_DIR)/skald serve --host $(HOST) --port $(PORT) --data $(DATA)

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

clean:
	rm -rf build
