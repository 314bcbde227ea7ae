import ArgumentParser
import Foundation
@testable import GatehouseCLI
import Testing

/// Issue 28, item 3: every `gatehouse …` line in the README's shell blocks is a command the CLI accepts, with
/// flags it has (the README once promised `gatehouse inject --list`, which did not exist). Each line is parsed by
/// the CLI's own parser, as `gatehouse` itself would parse it; a line that needs a running server, a browser or
/// real ids is not executed here (the commands' behaviour has tests of its own, e.g. `RemoteCLITests`).
@Suite struct ReadmeCommandLinesTests {
    static var readme: String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return (try? String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""
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
            let starts = name == "gatehouse" && (index == 0 || !["--name", "-o"].contains(words[index - 1]))
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

    @Test func everyReadmeCommandLineParses() throws {
        let lines = Self.commandLines(in: Self.readme)
        #expect(lines.count > 60, "found only \(lines.count) gatehouse lines")
        for (line, arguments) in lines {
            #expect(throws: Never.self, "README line: \(line)") { _ = try GatehouseCommand.parseAsRoot(arguments) }
        }
    }

    @Test func aMisspelledFlagIsCaught() {
        let lines = Self.commandLines(in: "```sh\ngatehouse inject --lsit   # typo\n```\n")
        #expect(lines.map(\.arguments) == [["inject", "--lsit"]])
        #expect(throws: (any Error).self) { _ = try GatehouseCommand.parseAsRoot(lines[0].arguments) }
        #expect(
            Self.invocations(in: #"T=$(gatehouse admin token create --name ci --json | python3 -c 'x')"#) == [
                ["admin", "token", "create", "--name", "ci", "--json"]
            ])
    }
}
