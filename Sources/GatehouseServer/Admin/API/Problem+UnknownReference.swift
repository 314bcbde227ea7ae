extension Problem {
    /// A body field that names an app or person that does not exist: 404 naming the field, as a path naming one
    /// does (issue 41 item 6: no schema can say which ids exist, so the document promises 404, never 400, for it).
    static func unknownReference(_ field: String, _ detail: String) -> Problem {
        Problem(.notFound, detail, field: field)
    }
}
