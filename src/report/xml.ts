import {visibleText} from '../model/visible-text.js'

/**
 * XML is built from elements, never from strings: {@link xmlDocument} writes every attribute value and
 * every text line escaped — first shown visibly ({@link visibleText}: no control, bidirectional or
 * invisible character, none of the characters XML 1.0 cannot carry), then `&`, `<`, `>` and `"` as
 * entities — so no value can close an element, add an attribute or make the document ill-formed.
 */

/** An element: a name, attributes in order, and children (elements, or text). */
export interface XmlElement {
  readonly name: string
  readonly attributes: ReadonlyArray<readonly [string, string | number]>
  readonly children: readonly XmlChild[]
}

/** Text content: lines, joined by line feeds (a line feed inside a line is shown as `\n`). */
export interface XmlText {
  readonly lines: readonly string[]
}

/** A child of an element. */
export type XmlChild = XmlElement | XmlText

/** An element of `name` with these attributes and children. */
export function element(name: string, attributes: XmlElement['attributes'], children: readonly XmlChild[] = []): XmlElement {
  return {name, attributes, children}
}

/** Text content of these lines. */
export function xmlText(...lines: string[]): XmlText {
  return {lines}
}

/** A UTF-8 XML document of `root`, an element per line indented by two spaces, ended with a line feed. */
export function xmlDocument(root: XmlElement): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${renderElement(root, '')}`
}

function renderElement(node: XmlElement, indent: string): string {
  const open = `${indent}<${node.name}${node.attributes.map(([name, value]) => ` ${name}="${escapeAttribute(String(value))}"`).join('')}`
  if (node.children.length === 0) return `${open}/>\n`
  if (node.children.every(isText)) return `${open}>${node.children.map((child) => child.lines.map(escapeText).join('\n')).join('')}</${node.name}>\n`
  const children = node.children.map((child) => (isText(child) ? `${indent}  ${child.lines.map(escapeText).join('\n')}\n` : renderElement(child, `${indent}  `)))
  return `${open}>\n${children.join('')}${indent}</${node.name}>\n`
}

function isText(child: XmlChild): child is XmlText {
  return 'lines' in child
}

function escapeText(value: string): string {
  return visibleText(value).replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')
}

function escapeAttribute(value: string): string {
  return escapeText(value).replaceAll('"', '&quot;')
}
