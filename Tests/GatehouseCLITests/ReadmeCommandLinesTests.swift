import ArgumentParser
import Foundation
@testable import GatehouseCLI
import Testing

/// Issue 28, item 3: every `gatehouse …` line in the documentation's shell blocks is a command the CLI accepts, with
/// flags it has (the README once promised `gatehouse inject --list`, which did not exist). Each line is parsed by
/// the CLI's own parser, as `gatehouse` itself would parse it; a line that needs a running server, a browser or
/// real ids is not executed here (the commands' behaviour has tests of its own, e.g. `RemoteCLITests`).
///
/// Issue 40: the documentation is the README and the pages under `docs/` (and the other Markdown files in
/// ``documentPaths``); the count of lines is over all of them, so the README can stay short.
@Suite struct ReadmeCommandLinesTests {
    /// The repository's root.
    static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// The Markdown files whose shell blocks are checked, relative to the root: the README, CONTRIBUTING.md, every
    /// `.md` under `docs/` (`docs/scenarios/README.md` included) and `examples/python/README.md`.
    static var documentPaths: [String] {
        var paths = ["README.md", "CONTRIBUTING.md", "examples/python/README.md"]
        let docs = root.appendingPathComponent("docs")
        let found = FileManager.default.enumerator(at: docs, includingPropertiesForKeys: nil)?.compactMap { item in
            (item as? URL).flatMap { $0.pathExtension == "md" ? $0 : nil }
        }
        let rootPath = root.standardizedFileURL.path
        for url in found ?? [] {
            paths.append(String(url.standardizedFileURL.path.dropFirst(rootPath.count + 1)))
        }
        return paths.sorted()
    }

    /// Each document's path and text; a path that cannot be read has the empty text (and fails the test).
    static var documents: [(path: String, text: String)] {
        documentPaths.map { path in
            (path, (try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)) ?? "")
        }
    }

    /// The `gatehouse` invocations in the README's ```sh blocks, as argument lists (without `gatehouse`).
    static func commandLines(in text: String) -> [(line: String, arguments: [String])] {
        var found: [(String, [String])] = []
        var inShell = false, pending = ""
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(raw)
            if line.hasPrefix("```") { inShell = line == "```sh"; pending = ""; continue }
            guard inShell else { continue }
            // A trailing backslash continues the command on the next line.
            if line.hasSuffix("\\") { pending += line.dropLast() + " "; continue }
            let whole = pending + line
            pending = ""
            // Container engines name images `gatehouse` too; their lines are not the CLI's.
            if ["docker", "podman", "buildah"].contains(shellWords(whole).first ?? "") { continue }
            for command in invocations(in: whole) { found.append((whole, command)) }
        }
        return found
    }

    /// Every `gatehouse` (also `./gatehouse`, `swift run gatehouse`, `/usr/bin/gatehouse`) on one line, up to the
    /// end of its shell command (`|`, `&`, `;`, `)`, `>` or a comment).
    static func invocations(in line: String) -> [[String]] {
        let words = shellWords(line)
        var result: [[String]] = []
        var index = 0
        while index < words.count {
            let word = words[index]
            let name = word.split(separator: "/").last.map(String.init) ?? word
            // `GATEHOUSE_BIN=.build/debug/gatehouse python3 …` sets a variable: the command is what follows it.
            let starts =
                name == "gatehouse" && !word.contains("=")
                && (index == 0 || !["--name", "-o"].contains(words[index - 1]))
            guard starts else { index += 1; continue }
            var arguments: [String] = []
            index += 1
            while index < words.count, !["|", "&", "&&", ";", ")", ">", "<", "#"].contains(words[index]) {
                // A shell variable or substitution stands for some value; "1" parses as any option's type.
                arguments.append(words[index].hasPrefix("$") ? "1" : words[index])
                index += 1
            }
            result.append(arguments)
        }
        return result
    }

    /// A small shell word splitter: quotes group, and `|`, `&`, `;`, `(`, `)`, `<`, `>` and a leading `#` stand alone.
    static func shellWords(_ line: String) -> [String] {
        var words: [String] = [], current = "", quote: Character?
        var hasWord = false
        func flush() { if hasWord { words.append(current) }; current = ""; hasWord = false }
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
                continue
            }
            switch character {
            case "'", "\"": quote = character; hasWord = true
            case " ", "\t": flush()
            case "|", "&", ";", "(", ")", ">", "<":
                flush()
                if let last = words.last, last == "&", character == "&" {
                    words[words.count - 1] = "&&"
                } else {
                    words.append(String(character))
                }
            case "#" where !hasWord: flush(); words.append("#"); return words
            default: current.append(character); hasWord = true
            }
        }
        flush()
        return words
    }

    @Test func everyDocumentedCommandLineParses() throws {
        let documents = Self.documents
        #expect(documents.map(\.path).contains("README.md") && documents.map(\.path).contains("docs/CLI.md"))
        var total = 0
        for (path, text) in documents {
            #expect(!text.isEmpty, "\(path) is missing or empty")
            let lines = Self.commandLines(in: text)
            total += lines.count
            for (line, arguments) in lines {
                #expect(throws: Never.self, "\(path) line: \(line)") { _ = try GatehouseCommand.parseAsRoot(arguments) }
            }
        }
        #expect(total > 60, "found only \(total) gatehouse lines in \(documents.map(\.path))")
    }

    @Test func aMisspelledFlagIsCaught() {
        let lines = Self.commandLines(in: "```sh\ngatehouse inject --lsit   # typo\n```\n")
        #expect(lines.map(\.arguments) == [["inject", "--lsit"]])
        #expect(throws: (any Error).self) { _ = try GatehouseCommand.parseAsRoot(lines[0].arguments) }
        #expect(
            Self.invocations(in: #"T=$(gatehouse admin token create --name ci --json | python3 -c 'x')"#) == [
                ["admin", "token", "create", "--name", "ci", "--json"]
            ])
        #expect(
            Self.invocations(in: "GATEHOUSE_BIN=.build/debug/gatehouse python3 -m pytest examples/python") == [])
    }
}
