import type { DataSignalOperator } from '@contracts/domain';
import type { DataSignalPropertyRecord, DataSignalRecord } from './data-signal.model';

const SET: DataSignalOperator[] = ['EQUALS', 'NOT_EQUALS', 'IN', 'NOT_IN'];
const RANGE: DataSignalOperator[] = ['EQUALS', 'NOT_EQUALS', 'IN', 'NOT_IN', 'GREATER_THAN', 'LESS_THAN', 'BETWEEN'];

const text = (propertyId: string, propertyName: string, operators = SET): DataSignalPropertyRecord => ({
  propertyId,
  propertyName,
  operators,
  valueType: 'string',
});
const number = (propertyId: string, propertyName: string, operators = RANGE): DataSignalPropertyRecord => ({
  propertyId,
  propertyName,
  operators,
  valueType: 'number',
});

/**
 * The data signals campaigns can decide by. Ids are stable: stored campaigns reference them, so a
 * signal keeps its id forever and a new one takes the next. Every start brings the stored copy up
 * to date with this list.
 */
export const DATA_SIGNAL_CATALOG: readonly DataSignalRecord[] = [
  {
    dataSignalId: 1,
    dataSignalName: 'Geography',
    properties: [
      text('country', 'Country (ISO 3166-1 alpha-2)'),
      text('region', 'Region or state'),
      text('city', 'City'),
      text('postalCode', 'Postal code', [...SET, 'STARTS_WITH']),
    ],
  },
  {
    dataSignalId: 2,
    dataSignalName: 'Time',
    properties: [
      text('dayOfWeek', 'Day of week (MONDAY to SUNDAY, in the viewer time zone)'),
      number('hourOfDay', 'Hour of day (0 to 23, in the viewer time zone)'),
    ],
  },
  {
    dataSignalId: 3,
    dataSignalName: 'Weather',
    properties: [text('condition', 'Condition (clear, clouds, rain, snow, storm, fog)'), number('temperature', 'Temperature, degrees Celsius')],
  },
  {
    dataSignalId: 4,
    dataSignalName: 'Device',
    properties: [text('deviceType', 'Device type (desktop, mobile, tablet, ctv)'), text('os', 'Operating system (android, ios, windows, macos, linux)')],
  },
  {
    dataSignalId: 5,
    dataSignalName: 'Audience',
    properties: [text('segment', 'Audience segment id')],
  },
];
