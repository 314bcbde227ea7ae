import Foundation
import Testing

/// Issue 40: the README is short and the rest lives in `docs/`, so the pages lean on links to each other and on the
/// files they name. A renamed heading or a moved file breaks those silently; these tests make it fail instead.
@Suite struct DocsLinksTests {
    static var root: URL { ReadmeCommandLinesTests.root }

    /// The lines outside fenced code blocks (a fence may be indented, inside a list item).
    static func prose(_ text: String) -> [Substring] {
        var inside = false
        return text.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
            if line.drop(while: { $0 == " " }).hasPrefix("```") {
                inside.toggle()
                return false
            }
            return !inside
        }
    }

    /// The parts of a line outside inline code spans (even-numbered parts) or inside them (odd-numbered).
    static func codeSpans(_ line: Substring, inside: Bool) -> [Substring] {
        line.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter {
            $0.offset % 2 == (inside ? 1 : 0)
        }
        .map(\.element)
    }

    /// GitHub's anchors for a page's headings: lower case, punctuation other than `-` and `_` dropped, spaces as
    /// `-`, and `-1`, `-2`, … after a repeated heading.
    static func anchors(in text: String) -> Set<String> {
        var result: Set<String> = []
        var seen: [String: Int] = [:]
        for line in prose(text) {
            let hashes = line.prefix { $0 == "#" }.count
            guard (1...6).contains(hashes), line.dropFirst(hashes).first == " " else { continue }
            let title = line.dropFirst(hashes).replacingOccurrences(of: "`", with: "")
                .trimmingCharacters(in: .whitespaces).lowercased()
            let kept = title.filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == " " }
            let slug = kept.replacingOccurrences(of: " ", with: "-")
            let repeats = seen[slug, default: 0]
            seen[slug] = repeats + 1
            result.insert(repeats == 0 ? slug : "\(slug)-\(repeats)")
        }
        return result
    }

    /// The targets of the Markdown links (and images) in a page's prose: `[text](target)`.
    static func linkTargets(in text: String) -> [String] {
        var targets: [String] = []
        for line in prose(text) {
            for part in codeSpans(line, inside: false) {
                var rest = part[...]
                while let open = rest.range(of: "](") {
                    let after = rest[open.upperBound...]
                    guard let close = after.firstIndex(of: ")") else { break }
                    let target = String(after[..<close])
                    if !target.contains(" ") { targets.append(target) }
                    rest = after[close...]
                }
            }
        }
        return targets
    }

    @Test func everyRelativeLinkAndAnchorResolves() throws {
        var checked = 0
        for (path, text) in ReadmeCommandLinesTests.documents {
            let page = Self.root.appendingPathComponent(path)
            for target in Self.linkTargets(in: text) where !target.contains("://") && !target.hasPrefix("mailto:") {
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                let file =
                    parts[0].isEmpty
                    ? page : URL(fileURLWithPath: String(parts[0]), relativeTo: page.deletingLastPathComponent())
                checked += 1
                guard FileManager.default.fileExists(atPath: file.standardizedFileURL.path) else {
                    Issue.record("\(path): the link \(target) names no file")
                    continue
                }
                guard parts.count == 2, file.pathExtension == "md" else { continue }
                let linked = try String(contentsOf: file, encoding: .utf8)
                #expect(Self.anchors(in: linked).contains(String(parts[1])), "\(path): no heading for \(target)")
            }
        }
        #expect(checked > 100, "only \(checked) links checked")
    }

    /// The README and CONTRIBUTING.md name files to open (`Sources/GatehouseServer/App/GatehouseApp.swift`, or
    /// `AccountPages.swift` beside a folder already named): each must exist.
    @Test func everyFileTheReadmeAndContributingNameExists() throws {
        var names: Set<String> = []
        for folder in ["Sources", "Tests"] {
            let files = FileManager.default.enumerator(
                at: Self.root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            for case let url as URL in files?.allObjects ?? [] { names.insert(url.lastPathComponent) }
        }
        let roots = ["Sources/", "Tests/", "docs/", "scripts/", "packaging/", "examples/"]
        var checked = 0
        for path in ["README.md", "CONTRIBUTING.md"] {
            let text = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
            for line in Self.prose(text) {
                for span in Self.codeSpans(line, inside: true) where !span.contains(" ") {
                    let word = String(span)
                    // Placeholders (`MigrationNN<WhatItDoes>.swift`, `/{id}`) name no one file.
                    guard !word.contains(where: { "<{*…".contains($0) }) else { continue }
                    if roots.contains(where: { word.hasPrefix($0) }) {
                        checked += 1
                        #expect(
                            FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(word).path),
                            "\(path) names \(word), which does not exist")
                    } else if ["swift", "mustache", "yaml"].contains(URL(fileURLWithPath: word).pathExtension),
                        !word.contains("/")
                    {
                        checked += 1
                        #expect(names.contains(word), "\(path) names \(word): no file of that name in Sources or Tests")
                    }
                }
            }
        }
        #expect(checked > 30, "only \(checked) file names checked")
    }

    /// The README stays a ten-minute read, and its index links every page in `docs/`.
    @Test func theReadmeIsShortAndIndexesEveryPage() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).count
        #expect(lines <= 300, "the README has \(lines) lines; move the detail to a page under docs/")
        let linked = Set(Self.linkTargets(in: readme).map { $0.split(separator: "#").first.map(String.init) ?? $0 })
        let pages = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }
        #expect(!pages.isEmpty)
        for page in pages { #expect(linked.contains("docs/" + page), "the README's index does not link docs/\(page)") }
        #expect(linked.contains("CONTRIBUTING.md") && linked.contains("LICENSE"))
    }
}
