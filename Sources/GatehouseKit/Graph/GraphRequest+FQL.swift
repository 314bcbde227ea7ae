import Foundation

/// FQL as the seeds call it: the Graph form `GET /fql?q=…` (seed 001's `requestForGraphPath:@"/fql"`) and
/// the REST form `GET /method/fql.query?query=…` (seed 002's `requestWithMethodName:@"FQL.query"`).
extension GraphRequest {
    /// `GET fql?q=query`: the reply is `{"data": [rows]}`.
    public convenience init(fqlQuery query: String, tokenString: String? = nil) {
        self.init(
            graphPath: "fql", parameters: ["q": query], tokenString: tokenString ?? AccessToken.current?.tokenString,
            version: nil, httpMethod: .get)
    }

    /// `GET method/fql.query?query=query`: the reply is a bare array of rows, as the REST API answered.
    public convenience init(restFQLQuery query: String, tokenString: String? = nil) {
        self.init(
            graphPath: "method/fql.query", parameters: ["query": query],
            tokenString: tokenString ?? AccessToken.current?.tokenString, version: nil, httpMethod: .get)
    }
}
